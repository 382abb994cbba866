import XCTest

@testable import FoldKit

/// `FixtureWriter.write` reports each layer once its output has been computed and written.
final class FixtureWriterProgressTests: XCTestCase {
    typealias S = RuntimeTestSupport

    func testEveryLayerIsReportedOnceComputedAndWritten() throws {
        let shape = ActivationShape(channels: 2, height: 4, width: 4)
        let network = try S.network(input: shape) { builder in
            let conv = try builder.append(
                kind: .convolution(
                    Convolution(
                        inputChannels: 2, outputChannels: 2, kernelHeight: 1, kernelWidth: 1,
                        weights: WeightTensor(shape: [2, 2, 1, 1], values: [1, 0.5, -0.5, 1]), bias: nil)), inputs: [Network.inputIndex],
                source: S.source)
            try builder.append(kind: .sum(ElementwiseSum(activation: .linear)), inputs: [conv, Network.inputIndex], source: S.source)
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fixture-progress-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var events: [String] = []
        let manifest = try FixtureWriter.write(
            network: network, input: ModelInput(values: S.seeded(shape.count, seed: 2), origin: "seeded"),
            layout: .nchw, to: folder, progress: { events.append("\($0) \($1)/\($2)") })
        XCTAssertEqual(manifest.tensors.count, 3)
        XCTAssertEqual(events, ["forward pass (float64) and writing 1/2", "forward pass (float64) and writing 2/2"])
    }
}
