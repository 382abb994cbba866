import FoldKitDarknet
import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit

/// A blob folder alone (no .cfg, no .weights) rebuilds a network that computes what the folded source
/// network computes: bit for bit from float32 blobs, and from float16 blobs exactly what `verify --blobs`
/// runs; what it cannot rebuild is refused naming the layer.
final class BlobNetworkTests: XCTestCase {
    private func convert(_ network: Network, dtype: BlobDType, layout: WeightLayout = .ohwi) throws -> URL {
        let dir = try TestData.temporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let blobs = dir.appendingPathComponent("blobs")
        try BlobWriter.write(network: network, to: blobs, options: .init(layout: layout, dtype: dtype))
        return blobs
    }

    private func outputs(_ network: Network, seed: UInt64 = 5) throws -> [[Float]] {
        let input = ModelInput.seeded(seed, shape: network.inputShape)
        return try Executor<Float>(network: network).run(input: input.values)
    }

    /// Every real Darknet detector in ../shared, in two layouts: the rebuilt network's every layer output
    /// equals the folded network's (float32 blobs) and the blob-read network's (float16 blobs).
    func testRealDarknetModelsRunFromTheirBlobFolderAlone() throws {
        let models = [
            "yolo-fastest-1.1", "yolo-fastest-1.1-xl", "yoloface-50k", "yoloface-500k-v2", "MobileNetV2-YOLOv3-Nano-voc", "DroNet_car",
            "DroNetV3_car",
        ]
        for name in models {
            let folder = try TestData.sharedFile("real-models/\(name)")
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            guard let cfg = files.first(where: { $0.hasSuffix(".cfg") }) else { return XCTFail("\(name): no cfg") }
            let network = try DarknetReader.read(
                cfgPath: folder.appendingPathComponent(cfg).path,
                weightsPath: folder.appendingPathComponent(cfg.replacingOccurrences(of: ".cfg", with: ".weights")).path,
                options: .init(inputHeight: 96, inputWidth: 96))
            let folded = try FoldBatchNorm.apply(to: network).materialized()
            let expected = try outputs(folded)
            for layout in [WeightLayout.ohwi, .sliced] {
                let blobs32 = try convert(network, dtype: .float32, layout: layout)
                let rebuilt = try BlobNetwork.read(folder: blobs32)
                XCTAssertEqual(rebuilt.layers.map(\.outputShape), network.layers.map(\.outputShape), name)
                XCTAssertEqual(rebuilt.outputIndices, network.outputIndices, name)
                let found = try outputs(rebuilt)
                for index in expected.indices { XCTAssertEqual(found[index], expected[index], "\(name) \(layout) layer \(index)") }
            }
            let blobs16 = try convert(network, dtype: .float16)
            let read = try XCTUnwrap(try BlobReader.read(folder: blobs16, model: network).network, name)
            let fromHalf = try outputs(try BlobNetwork.read(folder: blobs16))
            let fromReader = try outputs(read)
            for index in fromReader.indices { XCTAssertEqual(fromHalf[index], fromReader[index], "\(name) float16 layer \(index)") }
        }
    }

    /// A layer type outside the rebuilt set (here a [reorg]) is refused naming the layer and the type; a
    /// damaged blob is refused naming its file.
    func testUnsupportedLayersAndDamagedBlobsAreRefused() throws {
        let cfg = TestData.fixture("darknet/cfg/route-reorg.cfg").path
        let dir = try TestData.temporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let weights = dir.appendingPathComponent("w.weights").path
        try DarknetSeededWeights.write(cfgPath: cfg, seed: 2, to: weights)
        let network = try DarknetReader.read(cfgPath: cfg, weightsPath: weights)
        let blobs = try convert(network, dtype: .float32)
        let reorg = try XCTUnwrap(network.layers.first { if case .reorg = $0.kind { return true } else { return false } })
        XCTAssertThrowsError(try BlobNetwork.read(folder: blobs)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("manifest.json: \(reorg.index) ") && text.contains("darknetReorg"), "layer \(reorg.index): " + text)
        }
        let plainCfg = TestData.fixture("darknet/cfg/conv-basic.cfg").path
        try DarknetSeededWeights.write(cfgPath: plainCfg, seed: 2, to: weights)
        let plain = try convert(try DarknetReader.read(cfgPath: plainCfg, weightsPath: weights), dtype: .float16)
        XCTAssertNoThrow(try BlobNetwork.read(folder: plain))
        let conv = plain.appendingPathComponent("conv0_W.bin")
        var bytes = try Data(contentsOf: conv)
        bytes[0] ^= 0x40
        try bytes.write(to: conv)
        XCTAssertThrowsError(try BlobNetwork.read(folder: plain)) { error in
            XCTAssertTrue("\(error)".contains("conv0_W.bin"), "\(error)")
        }
    }
}
