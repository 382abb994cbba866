import XCTest

@testable import FoldKit

/// LayerProfile: one time per layer, on both clocks, and a layer with real work measured above an empty one.
final class LayerProfileTests: XCTestCase {
    typealias S = RuntimeTestSupport

    func testEveryLayerGetsAFiniteTimeAndTheConvolutionDominates() throws {
        let shape = ActivationShape(channels: 16, height: 24, width: 24)
        let conv = Convolution(
            inputChannels: 16, outputChannels: 16, kernelHeight: 3, kernelWidth: 3, padding: .uniform(1),
            weights: WeightTensor(shape: [16, 16, 3, 3], values: S.seeded(16 * 16 * 9, seed: 4)), bias: nil)
        let network = try S.network(input: shape) { builder in
            _ = try builder.append(kind: .convolution(conv), inputs: [Network.inputIndex], source: S.source)
            _ = try builder.append(kind: .identity(reason: "test"), inputs: [0], source: S.source)
        }
        let profile = try LayerProfile.measure(try Executor<Double>(network: network), input: S.seeded(shape.count).map(Double.init), runs: 2)
        XCTAssertEqual(profile.seconds.count, 2)
        XCTAssertEqual(profile.cpuSeconds.count, 2)
        XCTAssertTrue(profile.seconds.allSatisfy { $0.isFinite && $0 >= 0 })
        XCTAssertTrue(profile.cpuSeconds.allSatisfy { $0.isFinite && $0 >= 0 })
        // 16 x 576 x 144 multiply-adds against handing back the input array
        XCTAssertGreaterThan(profile.seconds[0], profile.seconds[1])
        XCTAssertGreaterThanOrEqual(profile.passSeconds, profile.seconds[0])
    }
}
