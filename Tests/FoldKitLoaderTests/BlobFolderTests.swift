import FoldKitBlobFormat
import FoldKitDarknet
import FoldKitLoader
import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit

/// `BlobFolder` reads what `BlobWriter` writes, hands out each tensor by layer and role with its shape
/// and layout, and refuses a changed folder naming the file and the expected and found values.
final class BlobFolderTests: XCTestCase {
    /// conv-basic.cfg with seeded weights (plain, strided, depthwise and grouped convolutions), its folded
    /// network, and its blobs in `layout`.
    private func convert(layout: WeightLayout = .oihw) throws -> (folded: Network, blobs: URL) {
        let dir = try TestData.temporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let cfg = TestData.fixture("darknet/cfg/conv-basic.cfg").path
        let weights = dir.appendingPathComponent("w.weights").path
        try DarknetSeededWeights.write(cfgPath: cfg, seed: 3, to: weights)
        let network = try DarknetReader.read(cfgPath: cfg, weightsPath: weights)
        let blobs = dir.appendingPathComponent("blobs")
        try BlobWriter.write(network: network, to: blobs, options: .init(layout: layout))
        return (try FoldBatchNorm.apply(to: network), blobs)
    }

    private func loaderError(_ body: () throws -> Void) -> BlobFolderError? {
        do { try body() } catch let error as BlobFolderError { return error } catch { XCTFail("\(error)") }
        return nil
    }

    func testEveryTensorIsTheFoldedParameterWithItsShapeAndRole() throws {
        let (folded, url) = try convert()
        let blobs = try BlobFolder(url: url)
        XCTAssertEqual(blobs.layers.map(\.index), folded.layers.map(\.index))
        XCTAssertEqual(blobs.source.format, "darknet")
        var convolutions = 0
        for layer in folded.layers {
            guard case .convolution(let c) = layer.kind else { continue }
            convolutions += 1
            guard let w = blobs.tensor(layer: layer.index, role: .weights), let b = blobs.tensor(layer: layer.index, role: .bias) else {
                return XCTFail("layer \(layer.index) has no weights or bias")
            }
            XCTAssertEqual(w.shape, [c.outputChannels, c.inputChannels / c.groups, c.kernelHeight, c.kernelWidth])
            XCTAssertEqual(w.layout, .oihw)
            XCTAssertEqual(w.floats(), try c.weights.floats(), "layer \(layer.index)")
            XCTAssertEqual(w.withUnsafeFloats(Array.init), w.floats())
            XCTAssertEqual(b.floats(), try c.bias?.floats() ?? [Float](repeating: 0, count: c.outputChannels))
            XCTAssertEqual(b.layout, .vector)
            XCTAssertEqual(blobs.tensors(ofLayer: layer.index).map(\.role), [.weights, .bias])
            XCTAssertEqual(blobs.tensor(named: "conv\(layer.index)_W")?.file, "conv\(layer.index)_W.bin")
            XCTAssertEqual(blobs.layers[layer.index].groups, c.groups)
        }
        XCTAssertEqual(convolutions, 9)
        XCTAssertNil(blobs.tensor(named: "nothing"))
    }

    /// The sliced layout comes with its padded shape and its layout names.
    func testSlicedTensorsCarryThePaddedShape() throws {
        let (_, url) = try convert(layout: .sliced)
        let blobs = try BlobFolder(url: url)
        // Layer 0: 8 filters over 3 channels, 3x3: [8, 3, 3, 4]. Layer 2: depthwise over 6 channels: [2, 3, 3, 4].
        XCTAssertEqual(blobs.tensor(layer: 0, role: .weights)?.shape, [8, 3, 3, 4])
        XCTAssertEqual(blobs.tensor(layer: 0, role: .weights)?.layout, .sliced)
        XCTAssertEqual(blobs.tensor(layer: 2, role: .weights)?.shape, [2, 3, 3, 4])
        XCTAssertEqual(blobs.tensor(layer: 2, role: .weights)?.layout, .slicedDepthwise)
        XCTAssertEqual(blobs.tensor(layer: 0, role: .weights)?.data.count, 8 * 3 * 3 * 4 * 4)
    }

    func testTruncatedBlobNamesFileAndSizes() throws {
        let (_, url) = try convert()
        let file = url.appendingPathComponent("conv1_W.bin")
        let bytes = try Data(contentsOf: file)
        try bytes.dropLast(4).write(to: file)
        let error = loaderError { _ = try BlobFolder(url: url) }
        XCTAssertEqual(error?.kind, .sizeMismatch)
        XCTAssertEqual(error?.file, "conv1_W.bin")
        XCTAssertEqual(error?.expected, "\(bytes.count) bytes")
        XCTAssertEqual(error?.found, "\(bytes.count - 4) bytes")
    }

    func testChangedBlobFailsItsChecksumUnlessCheckingIsOff() throws {
        let (_, url) = try convert()
        let file = url.appendingPathComponent("conv3_W.bin")
        var bytes = try Data(contentsOf: file)
        bytes[5] ^= 0x40
        try bytes.write(to: file)
        let error = loaderError { _ = try BlobFolder(url: url) }
        XCTAssertEqual(error?.kind, .checksumMismatch)
        XCTAssertEqual(error?.file, "conv3_W.bin")
        XCTAssertEqual(error?.found, PlatformSHA256.hex(of: bytes))
        XCTAssertNotEqual(error?.expected, error?.found)
        let unchecked = try BlobFolder(url: url, options: .init(verifyChecksums: false))
        XCTAssertEqual(unchecked.tensor(named: "conv3_W")?.data, bytes)
        // Not mapped: the same bytes.
        XCTAssertEqual(try BlobFolder(url: url, options: .init(verifyChecksums: false, memoryMapped: false)).tensor(named: "conv3_W")?.data, bytes)
    }

    func testMissingFileManifestAndBadEntries() throws {
        let (_, url) = try convert()
        try FileManager.default.removeItem(at: url.appendingPathComponent("conv5_b.bin"))
        let missing = loaderError { _ = try BlobFolder(url: url) }
        XCTAssertEqual(missing?.kind, .missingFile)
        XCTAssertEqual(missing?.file, "conv5_b.bin")

        let manifestURL = url.appendingPathComponent("manifest.json")
        let original = try String(contentsOf: manifestURL, encoding: .utf8)
        for (change, kind, file) in [
            (original.replacingOccurrences(of: "\"version\" : 2", with: "\"version\" : 7"), BlobFolderError.Kind.badManifest, "manifest.json"),
            (original.replacingOccurrences(of: "\"conv0_W.bin\"", with: "\"..\\/conv0_W.bin\""), .unsafeFileName, "../conv0_W.bin"),
            (original.replacingOccurrences(of: "\"float32\"", with: "\"float16\""), .badEntry, "conv0_W.bin"),
            ("{}", .badManifest, "manifest.json"),
        ] {
            XCTAssertNotEqual(change, original, "the manifest edit took effect")
            try change.write(to: manifestURL, atomically: true, encoding: .utf8)
            let error = loaderError { _ = try BlobFolder(url: url) }
            XCTAssertEqual(error?.kind, kind, change.prefix(60).description)
            XCTAssertEqual(error?.file, file)
        }
        let version = original.replacingOccurrences(of: "\"version\" : 2", with: "\"version\" : 7")
        try version.write(to: manifestURL, atomically: true, encoding: .utf8)
        XCTAssertEqual(
            loaderError { _ = try BlobFolder(url: url) }?.description,
            "manifest.json: unknown manifest format (expected foldkit-blobs v1 or v2, found foldkit-blobs v7)")
        try FileManager.default.removeItem(at: manifestURL)
        XCTAssertEqual(loaderError { _ = try BlobFolder(url: url) }?.kind, .missingManifest)
    }
}
