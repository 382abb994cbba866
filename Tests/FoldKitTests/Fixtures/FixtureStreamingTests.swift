import FoldKitDarknet
import FoldKitTestSupport
import XCTest

@testable import FoldKit
@testable import FoldKitIO

/// `FixtureWriter.write` streams layer by layer: the pack must be byte-identical to one built from every
/// output held in memory at once (float64 pass with all parameters prepared up front, `.all` retention),
/// and a failed run must leave nothing behind.
final class FixtureStreamingTests: XCTestCase {
    typealias S = RuntimeTestSupport

    /// Every tensor file and the .npz, built the pre-streaming way: all outputs first, then each arranged and
    /// encoded; the .npz from all arrays at once.
    private func assertPackMatchesAllInMemory(_ network: Network, input: ModelInput, layout: FixtureLayout, _ label: String) throws {
        let folder = try TestData.temporaryDirectory("fixture-stream").appendingPathComponent("pack")
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        let manifest = try FixtureWriter.write(network: network, input: input, layout: layout, npz: true, to: folder)

        let outputs = try Executor<Double>(network: network).run(input: input.values.map(Double.init), retention: .all)
        let all = [input.values] + outputs.map { $0.map { Float($0) } }
        let vectors = FixtureWriter.vectorLayers(network)
        // Detection heads and [cost] have a second file (darknet's buffer and the raw input).
        XCTAssertEqual(manifest.tensors.count, all.count + network.layers.filter(DarknetLayerOutput.differs).count, label)
        var arrays: [(name: String, values: [Float], shape: [Int])] = []
        var next = 0
        for (position, values) in all.enumerated() {
            for tensor in FixtureWriter.stored(network: network, position: position, values: values, layout: layout, vectors: vectors) {
                let expected = NPYFile.encode(values: tensor.values, shape: tensor.shape)
                let written = try Data(contentsOf: folder.appendingPathComponent(tensor.fileName))
                XCTAssertEqual(written, expected, "\(label) \(layout) \(tensor.fileName)")
                XCTAssertEqual(manifest.tensors[next].file, tensor.fileName, label)
                XCTAssertEqual(manifest.tensors[next].sha256, Checksum.sha256Hex(expected), "\(label) \(tensor.fileName)")
                arrays.append((String(tensor.fileName.dropLast(4)), tensor.values, tensor.shape))
                next += 1
            }
        }
        let reference = folder.deletingLastPathComponent().appendingPathComponent("all-at-once.npz")
        try NPZArchive.write(arrays: arrays, to: reference)
        XCTAssertEqual(try Data(contentsOf: folder.appendingPathComponent("fixtures.npz")), try Data(contentsOf: reference), "\(label) \(layout) npz")
        XCTAssertEqual(manifest.pack?.sha256, try Checksum.sha256Hex(fileAt: reference.path), label)
    }

    func testDarknetRouteShortcutAndHeadPacksAreIdenticalToAllInMemory() throws {
        let dir = try TestData.temporaryDirectory("fixture-stream-weights")
        defer { try? FileManager.default.removeItem(at: dir) }
        for name in ["route-reorg", "shortcut-upsample", "yolo-head", "maxpool-spp"] {
            let cfg = TestData.fixture("darknet/cfg/\(name).cfg").path
            let weights = dir.appendingPathComponent("\(name).weights").path
            try DarknetSeededWeights.write(cfgPath: cfg, seed: 3, to: weights)
            let network = try ModelLoader.load(paths: [cfg, weights])
            let input = ModelInput(values: S.seeded(network.inputShape.count, seed: 5).map { ($0 + 1) / 2 }, origin: "seeded")
            for layout in FixtureLayout.allCases {
                try assertPackMatchesAllInMemory(network, input: input, layout: layout, name)
            }
        }
    }

    func testKerasPacksAreIdenticalToAllInMemory() throws {
        for name in ["dag", "tiny_yolo_voc"] {
            let network = try ModelLoader.load(paths: [TestData.fixture("keras/\(name).keras").path])
            let input = ModelInput(values: S.seeded(network.inputShape.count, seed: 7), origin: "seeded")
            for layout in FixtureLayout.allCases {
                try assertPackMatchesAllInMemory(network, input: input, layout: layout, name)
            }
        }
    }

    /// A parameter tensor of the last layer that cannot be read (its file span lies past the end of the file)
    /// fails the run after every earlier layer was written: the destination stays absent and no temporary
    /// folder is left beside it.
    func testFailureAfterEarlierLayersWereWrittenLeavesNothing() throws {
        let parent = try TestData.temporaryDirectory("fixture-fail")
        defer { try? FileManager.default.removeItem(at: parent) }
        let shortFile = parent.deletingLastPathComponent().appendingPathComponent("short-\(UUID().uuidString).bin")
        try Data(count: 4).write(to: shortFile)
        defer { try? FileManager.default.removeItem(at: shortFile) }
        let unreadable = WeightTensor(shape: [2], span: FileSpan(path: shortFile.path, byteOffset: 0, count: 2))
        let shape = ActivationShape(channels: 2, height: 3, width: 3)
        let network = try S.network(input: shape) { b in
            let a0 = try b.append(kind: .activation(.leaky(slope: 0.1)), inputs: [Network.inputIndex], source: S.source)
            let a1 = try b.append(kind: .activation(.mish), inputs: [a0], source: S.source)
            try b.append(kind: .channelAffine(ChannelAffine(scale: unreadable, shift: S.tensor([0, 0]))), inputs: [a1], source: S.source)
        }
        let destination = parent.appendingPathComponent("pack")
        var written: [Int] = []
        XCTAssertThrowsError(
            try FixtureWriter.write(
                network: network, input: ModelInput(values: S.seeded(shape.count), origin: "seeded"),
                layout: .nchw, npz: true, to: destination, progress: { _, done, _ in written.append(done) })
        ) { error in
            XCTAssertEqual((error as? FoldKitError)?.layer, network.layers[2].label, "\(error)")
        }
        XCTAssertEqual(written, [1, 2], "the first two layers were written before the failure")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: parent.path), [])
    }
}
