import FoldKitBlobFormat
import FoldKitBlobNetwork
import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit
@testable import FoldKitIO

/// `verify --blobs` catches a changed, transposed, truncated or missing blob and names it.
final class BlobsFromDiskTests: XCTestCase {
    private func convertCifar() throws -> (cfg: String, weights: String, blobs: URL) {
        let cfg = try TestData.sharedFile("real-models/cifar_small/cifar_small.cfg").path
        let weights = try TestData.sharedFile("real-models/cifar_small/cifar_small.weights").path
        let blobs = try TestData.temporaryDirectory().appendingPathComponent("blobs")
        let result = try CommandRunner.run(["convert", cfg, weights, "--out", blobs.path])
        XCTAssertEqual(result.status, 0, result.stderr)
        return (cfg, weights, blobs)
    }

    private func floats(_ url: URL) throws -> [Float] { FloatFileReader.decodeLittleEndianFloats(try Data(contentsOf: url)) }
    private func write(_ values: [Float], _ url: URL) throws { try values.withUnsafeBufferPointer { Data(buffer: $0) }.write(to: url) }

    func testIntactBlobsPass() throws {
        let m = try convertCifar()
        let result = try CommandRunner.run(["verify", m.cfg, m.weights, "--blobs", m.blobs.path])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
    }

    /// A Keras batch norm with nothing to fold into is shipped as scale/shift blobs and read back as such.
    func testUnfoldableBatchNormRunsFromItsScaleAndShiftBlobs() throws {
        let model = try TestData.sharedFile("real-models/keras_hls4ml_jetTagger_Conv2D_Small/keras_jetTagger_Conv2D_small.h5").path
        let blobs = try TestData.temporaryDirectory().appendingPathComponent("blobs")
        XCTAssertEqual(try CommandRunner.run(["convert", model, "--out", blobs.path]).status, 0)
        let intact = try CommandRunner.run(["verify", model, "--blobs", blobs.path])
        XCTAssertEqual(intact.status, 0, intact.stdout + intact.stderr)
        let manifest = try JSONDecoder().decode(BlobManifest.self, from: Data(contentsOf: blobs.appendingPathComponent("manifest.json")))
        guard let shift = manifest.tensors.first(where: { $0.role == .shift }) else { return XCTFail("no scale/shift blobs written") }
        var values = try floats(blobs.appendingPathComponent(shift.file))
        values[0] += 1
        try write(values, blobs.appendingPathComponent(shift.file))
        let changed = try CommandRunner.run(["verify", model, "--blobs", blobs.path])
        XCTAssertEqual(changed.status, 2, changed.stdout)
        XCTAssertTrue(changed.stdout.contains(shift.name), changed.stdout)
    }

    func testOneFlippedFloatExitsTwoNamingTheBlob() throws {
        let m = try convertCifar()
        let url = m.blobs.appendingPathComponent("conv3_W.bin")
        var values = try floats(url)
        values[100] = -values[100]
        try write(values, url)
        let result = try CommandRunner.run(["verify", m.cfg, m.weights, "--blobs", m.blobs.path])
        XCTAssertEqual(result.status, 2, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("conv3_W"), result.stdout)
        XCTAssertTrue(result.stdout.contains("SHA-256 of conv3_W differs from the manifest"), result.stdout)
    }

    func testBlobTransposedToOIHWIsCaught() throws {
        let m = try convertCifar()
        let url = m.blobs.appendingPathComponent("conv0_W.bin")
        // conv0: 32 filters, 3 inputs, 3x3; the manifest says OHWI.
        let ohwi = try floats(url)
        let oihw = try WeightLayoutTransform.toOIHW(ohwi, dims: [32, 3, 3, 3], from: .ohwi)
        try write(oihw, url)
        let result = try CommandRunner.run(["verify", m.cfg, m.weights, "--blobs", m.blobs.path])
        XCTAssertEqual(result.status, 2, result.stdout + result.stderr)
        XCTAssertTrue(result.stdout.contains("conv0_W"), result.stdout)

        // Even with the manifest's checksum updated to match, running from the files exposes the layout.
        let manifestURL = m.blobs.appendingPathComponent("manifest.json")
        var manifest = try JSONDecoder().decode(BlobManifest.self, from: Data(contentsOf: manifestURL))
        if let i = manifest.tensors.firstIndex(where: { $0.name == "conv0_W" }) {
            manifest.tensors[i].sha256 = try Checksum.sha256Hex(fileAt: url.path)
        }
        try JSONOutput.write(manifest, to: manifestURL)
        let rerun = try CommandRunner.run(["verify", m.cfg, m.weights, "--blobs", m.blobs.path])
        XCTAssertEqual(rerun.status, 2, rerun.stdout)
        XCTAssertTrue(rerun.stdout.contains("first: layer 0"), rerun.stdout)
    }

    func testTruncatedBlobExitsTwoAndMissingBlobExitsOne() throws {
        let m = try convertCifar()
        let url = m.blobs.appendingPathComponent("conv5_b.bin")
        try Data(try Data(contentsOf: url).dropLast(4)).write(to: url)
        let truncated = try CommandRunner.run(["verify", m.cfg, m.weights, "--blobs", m.blobs.path])
        XCTAssertEqual(truncated.status, 2, truncated.stdout + truncated.stderr)
        XCTAssertTrue(truncated.stdout.contains("conv5_b"), truncated.stdout)
        XCTAssertTrue(truncated.stdout.contains("size of conv5_b differs from the manifest"), truncated.stdout)

        try FileManager.default.removeItem(at: m.blobs.appendingPathComponent("conv7_W.bin"))
        let missing = try CommandRunner.run(["verify", m.cfg, m.weights, "--blobs", m.blobs.path])
        XCTAssertEqual(missing.status, 1, missing.stdout + missing.stderr)
        XCTAssertTrue(missing.stderr.contains("conv7_W"), missing.stderr)
    }
}
