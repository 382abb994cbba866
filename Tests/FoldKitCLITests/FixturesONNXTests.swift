import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit

/// `foldkit fixtures --onnx`: test_data_set_0/*.pb beside the .npy files, each holding exactly the array
/// of its .npy, listed in the manifest; `--check` reads them too.
final class FixturesONNXTests: XCTestCase {
    private var cfg: String { TestData.fixture("darknet/cfg/yolo-head.cfg").path }

    private func seeded() throws -> (dir: URL, weights: String) {
        let dir = try TestData.temporaryDirectory("foldkit-fixtures-onnx")
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let weights = dir.appendingPathComponent("w.weights").path
        XCTAssertEqual(try CommandRunner.run(["seed-weights", cfg, "--out", weights]).status, 0)
        return (dir, weights)
    }

    private func manifest(_ pack: URL) throws -> FixtureManifest {
        try JSONDecoder().decode(FixtureManifest.self, from: Data(contentsOf: pack.appendingPathComponent("manifest.json")))
    }

    /// Every .pb: dims = the .npy shape, FLOAT, the tensor's name, raw_data = the .npy payload byte for byte,
    /// the manifest's sha256; numbered input_0 then output_0, output_1, ... in manifest order.
    func testEveryProtoHoldsTheBytesOfItsNPY() throws {
        let (dir, weights) = try seeded()
        for layout in ["nchw", "nhwc", "sliced"] {
            let pack = dir.appendingPathComponent(layout)
            let run = try CommandRunner.run(["fixtures", cfg, weights, "--layout", layout, "--onnx", "--out", pack.path])
            XCTAssertEqual(run.status, 0, run.stderr)
            let written = try manifest(pack)
            let protos = try XCTUnwrap(written.onnx)
            XCTAssertEqual(protos.map(\.npy), written.tensors.map(\.file), "one .pb per .npy, in manifest order")
            XCTAssertEqual(
                protos.map(\.file), ["test_data_set_0/input_0.pb"] + (0..<written.tensors.count - 1).map { "test_data_set_0/output_\($0).pb" })
            XCTAssertEqual(
                try FileManager.default.contentsOfDirectory(atPath: pack.appendingPathComponent("test_data_set_0").path).sorted(),
                protos.map { String($0.file.dropFirst("test_data_set_0/".count)) }.sorted())
            for (proto, tensor) in zip(protos, written.tensors) {
                let data = try Data(contentsOf: pack.appendingPathComponent(proto.file))
                XCTAssertEqual(Checksum.sha256Hex(data), proto.sha256, proto.file)
                XCTAssertEqual(proto.layer, tensor.layer, proto.file)
                let decoded = try ONNXTensorFile.decode(data, file: proto.file)
                let npy = try Data(contentsOf: pack.appendingPathComponent(tensor.file))
                XCTAssertEqual(decoded.shape, tensor.shape, "\(layout) \(proto.file)")
                XCTAssertEqual(decoded.dataType, 1, "FLOAT")
                XCTAssertEqual(decoded.name, tensor.name)
                XCTAssertEqual(decoded.raw, npy.suffix(decoded.raw.count), "\(layout) \(proto.file): raw_data is the .npy payload")
                XCTAssertEqual(npy.count - decoded.raw.count, 10 + (Int(npy[8]) | Int(npy[9]) << 8), "\(proto.file): all of the payload")
            }
        }
    }

    func testCheckFindsAChangedProtoAndAnUnlistedOne() throws {
        let (dir, weights) = try seeded()
        let pack = dir.appendingPathComponent("pack")
        XCTAssertEqual(try CommandRunner.run(["fixtures", cfg, weights, "--onnx", "--out", pack.path]).status, 0)
        let passing = try CommandRunner.run(["fixtures", cfg, weights, "--check", pack.path])
        XCTAssertEqual(passing.status, 0, passing.stdout + passing.stderr)
        XCTAssertTrue(passing.stdout.contains("checked 20 tensors in"), passing.stdout)

        // One value of output_1.pb (layer 1) changed: --check names that file.
        let file = pack.appendingPathComponent("test_data_set_0/output_1.pb")
        var decoded = try ONNXTensorFile.decode(try Data(contentsOf: file), file: file.path)
        var values = try XCTUnwrap(decoded.values)
        values[5] += 1
        decoded.raw = values.withUnsafeBufferPointer { Data(buffer: $0) }
        try ONNXTensorFile.encode(raw: decoded.raw, shape: decoded.shape, name: decoded.name).write(to: file)
        try FileManager.default.copyItem(at: file, to: pack.appendingPathComponent("test_data_set_0/output_99.pb"))
        let drift = try CommandRunner.run(["fixtures", cfg, weights, "--check", pack.path])
        XCTAssertEqual(drift.status, 2, drift.stdout)
        XCTAssertTrue(drift.stdout.contains("test_data_set_0/output_1.pb: max deviation 1.000e+00"), drift.stdout)
        XCTAssertTrue(drift.stdout.contains("test_data_set_0/output_99.pb") && drift.stdout.contains("not listed"), drift.stdout)
        XCTAssertFalse(drift.stdout.contains("layer_001.npy:"), "the .npy itself is unchanged:\n\(drift.stdout)")
    }

    func testCheckRefusesAProtoPathOutsideThePack() throws {
        let (dir, weights) = try seeded()
        let pack = dir.appendingPathComponent("pack")
        XCTAssertEqual(try CommandRunner.run(["fixtures", cfg, weights, "--layers", "outputs", "--onnx", "--out", pack.path]).status, 0)
        let manifestURL = pack.appendingPathComponent("manifest.json")
        let text = try String(contentsOf: manifestURL, encoding: .utf8)
        let edited = text.replacingOccurrences(of: "\"test_data_set_0/output_0.pb\"", with: "\"../output_0.pb\"")
        XCTAssertNotEqual(edited, text)
        try edited.write(to: manifestURL, atomically: true, encoding: .utf8)
        let check = try CommandRunner.run(["fixtures", cfg, weights, "--check", pack.path])
        XCTAssertEqual(check.status, 1, check.stdout + check.stderr)
        XCTAssertTrue(check.stderr.contains("outside the pack") && check.stderr.contains("../output_0.pb"), check.stderr)
    }

    /// A version 1 manifest (no `layers`, no `onnx`: packs written before both existed) is still checked as
    /// a pack of every layer.
    func testVersionOneManifestIsCheckedAsEveryLayer() throws {
        let (dir, weights) = try seeded()
        let pack = dir.appendingPathComponent("pack")
        XCTAssertEqual(try CommandRunner.run(["fixtures", cfg, weights, "--out", pack.path]).status, 0)
        var old = try manifest(pack)
        (old.version, old.layers) = (1, nil)
        try JSONEncoder().encode(old).write(to: pack.appendingPathComponent("manifest.json"))
        let check = try CommandRunner.run(["fixtures", cfg, weights, "--check", pack.path])
        XCTAssertEqual(check.status, 0, check.stdout + check.stderr)
        XCTAssertTrue(check.stdout.contains("checked 10 tensors"), check.stdout)
    }
}
