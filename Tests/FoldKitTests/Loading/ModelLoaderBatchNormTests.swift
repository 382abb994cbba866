import FoldKitDarknet
import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit

/// `ModelLoader` attaches stand-alone batch norms (`BatchNormAttachment`) for every format; the
/// readers alone keep them as layers of their own.
final class ModelLoaderBatchNormTests: XCTestCase {
    /// [convolutional] (linear, no batch_normalize) -> [batchnorm] -> [activation] -> [route] -2, with
    /// deterministic weights written in darknet's order (header, conv biases + weights, then the
    /// [batchnorm]'s biases, scales, rolling mean, rolling variance).
    private func writeDarknetModel(in directory: URL) throws -> [String] {
        let cfg = """
            [net]
            width=5
            height=4
            channels=2

            [convolutional]
            filters=3
            size=3
            stride=1
            pad=1
            activation=linear

            [batchnorm]

            [activation]
            activation=leaky

            [route]
            layers=-2

            """
        var data = Data()
        for v: Int32 in [0, 2, 0] { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
        withUnsafeBytes(of: Int64(0).littleEndian) { data.append(contentsOf: $0) }
        var rng = SplitMix64(seed: 7)
        let floats =
            (0..<3).map { _ in rng.nextFloat(in: -1, 1) } + (0..<54).map { _ in rng.nextFloat(in: -1, 1) }
            + (0..<3).map { _ in rng.nextFloat(in: -1, 1) } + (0..<3).map { _ in rng.nextFloat(in: 0.5, 1.5) }
            + (0..<3).map { _ in rng.nextFloat(in: -1, 1) } + (0..<3).map { _ in rng.nextFloat(in: 0.5, 2) }
        for f in floats { withUnsafeBytes(of: f.bitPattern.littleEndian) { data.append(contentsOf: $0) } }
        let cfgURL = directory.appendingPathComponent("m.cfg"), weightsURL = directory.appendingPathComponent("m.weights")
        try cfg.write(to: cfgURL, atomically: true, encoding: .utf8)
        try data.write(to: weightsURL)
        return [cfgURL.path, weightsURL.path]
    }

    func testDarknetStandaloneBatchNormAfterLinearConvolutionAttachesInPlace() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("ModelLoaderBatchNormTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let paths = try writeDarknetModel(in: directory)
        let read = try DarknetReader.read(cfgPath: paths[0], weightsPath: paths[1])
        guard case .batchNorm = read.layers[1].kind else { return XCTFail("the reader keeps [batchnorm] a layer: \(read.layers[1].kind)") }

        let loaded = try ModelLoader.load(paths: paths)
        XCTAssertEqual(loaded.layers.map(\.name), ["0", "1", "2", "3"])
        XCTAssertEqual(loaded.layers.map(\.inputs), [[Network.inputIndex], [0], [1], [1]])
        guard case .convolution(let conv) = loaded.layers[0].kind else { return XCTFail("layer 0 should be the convolution") }
        XCTAssertNotNil(conv.batchNorm)
        XCTAssertNotNil(conv.bias)
        XCTAssertEqual(loaded.layers[0].source.section, read.layers[0].source.section + "+" + read.layers[1].source.section)
        guard case .identity(let reason) = loaded.layers[1].kind else { return XCTFail("layer 1 should be an alias") }
        XCTAssertEqual(reason, BatchNormAttachment.aliasReason)

        // The route on layer 1 reads the normalised output either way.
        let input = (0..<40).map { Double($0 % 9) * 0.25 - 1 }
        let before = try Executor<Double>(network: read).run(input: input)
        let after = try Executor<Double>(network: loaded).run(input: input)
        XCTAssertEqual(before.count, 4)
        XCTAssertEqual(after.map(\.count), before.map(\.count), "the same layers and output sizes")
        guard after.count == before.count, before.count == 4 else { return }
        for (a, b) in zip(before[3], after[3]) { XCTAssertEqual(a, b, accuracy: 1e-12) }
    }

    func testKerasBatchNormsAttachWhenLoaded() throws {
        let path = TestData.fixture("keras/tiny_yolo_voc.keras").path
        let loaded = try ModelLoader.load(paths: [path])
        XCTAssertEqual(
            loaded.layers.filter {
                if case .batchNorm = $0.kind { return true }; return false
            }.count, 0)
        XCTAssertEqual(loaded.layers.filter { $0.source.section == "Conv2D+BatchNormalization" }.count, 9)
    }
}
