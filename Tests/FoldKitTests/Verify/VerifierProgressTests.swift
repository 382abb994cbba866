import XCTest

@testable import FoldKit

/// `Verifier.verify` reports each layer as every (lockstep) pass has computed it, in order, ending at the layer count.
final class VerifierProgressTests: XCTestCase {
    typealias S = RuntimeTestSupport

    func testEveryPassReportsEveryLayerInOrder() throws {
        let shape = ActivationShape(channels: 3, height: 6, width: 5)
        let bn = BatchNorm(
            gamma: S.tensor([1.5, 0.5, 1]), beta: S.tensor([0, 0.25, -0.5]), mean: S.tensor([0.1, 0, -0.2]),
            variance: S.tensor([0.5, 2, 1]), convention: .darknet)
        let network = try S.network(input: shape, outputs: [1]) { builder in
            let conv = try builder.append(
                kind: .convolution(
                    Convolution(
                        inputChannels: 3, outputChannels: 3, kernelHeight: 3, kernelWidth: 3, padding: .uniform(1),
                        weights: WeightTensor(shape: [3, 3, 3, 3], values: S.seeded(81, seed: 4)), bias: nil, batchNorm: bn,
                        activation: .leaky(slope: 0.1))), inputs: [Network.inputIndex], source: S.source)
            try builder.append(kind: .sum(ElementwiseSum(activation: .linear)), inputs: [conv, Network.inputIndex], source: S.source)
        }
        var events: [(pass: String, done: Int, total: Int)] = []
        let report = try Verifier.verify(
            original: network, folded: FoldBatchNorm.apply(to: network), input: ModelInput(values: S.seeded(shape.count, seed: 9), origin: "seeded"),
            options: .init(float16: true), progress: { events.append(($0, $1, $2)) })
        XCTAssertTrue(report.passed)
        XCTAssertEqual(events.map(\.pass), Array(repeating: "passes (reference float64, control and folded float32 and float16 storage)", count: 2))
        XCTAssertEqual(events.map(\.done), [1, 2])
        XCTAssertEqual(report.precisions.map(\.precision), [.float32, .float16Storage])
        XCTAssertTrue(events.allSatisfy { $0.total == 2 })
    }
}
