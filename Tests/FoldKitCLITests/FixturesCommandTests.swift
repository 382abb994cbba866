import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit
@testable import FoldKitIO

/// `foldkit fixtures` from the command line against independent references: OpenCV 4.x for Darknet
/// and Keras' own predictions.
final class FixturesCommandTests: XCTestCase {
    func testDarknetFixturesMatchOpenCVWithEpsilon1e6() throws {
        for model in ["cifar_small", "mnist_lenet", "DroNet_car"] {
            let reference = TestData.fixture("opencv/\(model)")
            struct Meta: Decodable {
                struct Layer: Decodable { var index: Int; var file: String }
                struct Size: Decodable { var height: Int; var width: Int }
                var cfg: String; var weights: [String: String]; var inputSize: Size; var layers: [Layer]
            }
            let meta = try JSONDecoder().decode(Meta.self, from: Data(contentsOf: reference.appendingPathComponent("meta.json")))
            let cfg = try TestData.sharedFile(meta.cfg).path
            let weights = try TestData.sharedFile(meta.weights["path"] ?? "").path
            let out = try TestData.temporaryDirectory().appendingPathComponent("fixtures")
            let result = try CommandRunner.run([
                "fixtures", cfg, weights, "--layout", "nchw", "--bn-epsilon", "1e-6",
                "--input", reference.appendingPathComponent("input.npy").path, "--out", out.path,
                "--height", String(meta.inputSize.height), "--width", String(meta.inputSize.width),
            ])
            XCTAssertEqual(result.status, 0, result.stderr)
            for layer in meta.layers {
                let ours = try NPYFile.read(path: out.appendingPathComponent(String(format: "layer_%03d.npy", layer.index)).path)
                let opencv = try NPYFile.read(path: reference.appendingPathComponent(layer.file).path)
                // OpenCV drops the 1x1 spatial axes of [connected] outputs; Darknet has no rank, FoldKit keeps (1, C, 1, 1).
                XCTAssertEqual(ours.shape.reduce(1, *), opencv.shape.reduce(1, *), "\(model) layer \(layer.index)")
                assertClose(ours.values, opencv.values, scaledTolerance: 1e-4, "\(model) layer \(layer.index) vs OpenCV")
            }
        }
    }

    func testKerasFixturesInNHWCReproduceKerasPredictions() throws {
        for file in ["dag.tfkeras.h5", "dag.keras3.h5", "dag.keras"] {
            let out = try TestData.temporaryDirectory().appendingPathComponent("fixtures")
            let result = try CommandRunner.run([
                "fixtures", TestData.fixture("keras/\(file)").path, "--layout", "nhwc",
                "--input", TestData.fixture("keras/dag.input.npy").path, "--out", out.path,
            ])
            XCTAssertEqual(result.status, 0, result.stderr)
            struct Manifest: Decodable { struct T: Decodable { var file: String; var name: String }; var tensors: [T] }
            let manifest = try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
            // Keras' outputs: every file dag.<saver>.out<k>.npy must equal one of our layer outputs.
            let saver = file.hasSuffix(".keras") ? "keras3" : String(file.split(separator: ".")[1])
            for k in 0..<2 {
                let expected = try NPYFile.read(path: TestData.fixture("keras/dag.\(saver).out\(k).npy").path)
                let matches = try manifest.tensors.filter { t in
                    let ours = try NPYFile.read(path: out.appendingPathComponent(t.file).path)
                    return ours.shape == expected.shape && Closeness.compare(ours.values, expected.values, scaledTolerance: 1e-4).passed
                }
                XCTAssertFalse(matches.isEmpty, "\(file) output \(k): no layer output within 1e-4 x max|Keras| of Keras' prediction")
            }
        }
    }

    func testSeededFixturesAreDeterministicAndCheckDetectsDrift() throws {
        let cfg = TestData.fixture("darknet/cfg/yolo-head.cfg").path
        let dir = try TestData.temporaryDirectory()
        let weights = dir.appendingPathComponent("w.weights").path
        XCTAssertEqual(try CommandRunner.run(["seed-weights", cfg, "--out", weights]).status, 0)
        for layout in ["sliced", "nhwc"] {
            let a = dir.appendingPathComponent("a-\(layout)"), b = dir.appendingPathComponent("b-\(layout)")
            XCTAssertEqual(try CommandRunner.run(["fixtures", cfg, weights, "--layout", layout, "--npz", "--out", a.path]).status, 0)
            XCTAssertEqual(try CommandRunner.run(["fixtures", cfg, weights, "--layout", layout, "--npz", "--out", b.path]).status, 0)
            XCTAssertEqual(
                try Data(contentsOf: a.appendingPathComponent("manifest.json")), try Data(contentsOf: b.appendingPathComponent("manifest.json")))
            let check = try CommandRunner.run(["fixtures", cfg, weights, "--check", a.path])
            XCTAssertEqual(check.status, 0, check.stdout + check.stderr)
            // Change one stored value: --check must report drift and exit 2.
            let file = a.appendingPathComponent("layer_002.npy")
            var stored = try NPYFile.read(path: file.path)
            stored.values[0] += 0.5
            try NPYFile.write(values: stored.values, shape: stored.shape, to: file)
            let drift = try CommandRunner.run(["fixtures", cfg, weights, "--check", a.path])
            XCTAssertEqual(drift.status, 2, drift.stdout)
            XCTAssertTrue(drift.stdout.contains("layer_002.npy"), drift.stdout)
        }
    }

    /// A pack manifest naming `../outside.npy` is refused before any file is read: `--check` reads only
    /// inside the pack.
    func testCheckRefusesAManifestPointingOutsideThePack() throws {
        let (cfg, weights, dir, pack) = try seededPack()
        let manifestURL = pack.appendingPathComponent("manifest.json")
        let text = try String(contentsOf: manifestURL, encoding: .utf8)
        let edited = text.replacingOccurrences(of: "\"layer_002.npy\"", with: "\"..\\/outside.npy\"")
        XCTAssertNotEqual(edited, text)
        try edited.write(to: manifestURL, atomically: true, encoding: .utf8)
        try NPYFile.write(values: [1], shape: [1], to: dir.appendingPathComponent("outside.npy"))
        let check = try CommandRunner.run(["fixtures", cfg, weights, "--check", pack.path])
        XCTAssertEqual(check.status, 1, check.stdout + check.stderr)
        XCTAssertTrue(check.stderr.contains("outside the pack") && check.stderr.contains("../outside.npy"), check.stderr)
    }

    /// The manifest's layouts and element types are read as their enums: an unknown layout (the pack's or a
    /// tensor's) or a dtype other than float32 is refused naming manifest.json, the key and the value found,
    /// exit 1, before any tensor is compared.
    func testCheckRefusesAnUnknownLayoutOrDType() throws {
        let (cfg, weights, _, pack) = try seededPack()
        let manifestURL = pack.appendingPathComponent("manifest.json")
        let original = try String(contentsOf: manifestURL, encoding: .utf8)
        XCTAssertEqual(try CommandRunner.run(["fixtures", cfg, weights, "--check", pack.path]).status, 0, "the unedited pack checks")
        let edits: [(from: String, to: String, found: String)] = [
            ("\"layout\" : \"nchw\"", "\"layout\" : \"chwn\"", "chwn"),
            ("\"dtype\" : \"float32\"", "\"dtype\" : \"float16\"", "float16"),
            ("\"dtype\" : \"float32\"", "\"dtype\" : \"int8\"", "int8"),
        ]
        for edit in edits {
            guard let range = original.range(of: edit.from) else {
                XCTFail("manifest.json has no \(edit.from)")
                continue
            }
            try original.replacingCharacters(in: range, with: edit.to).write(to: manifestURL, atomically: true, encoding: .utf8)
            let check = try CommandRunner.run(["fixtures", cfg, weights, "--check", pack.path])
            XCTAssertEqual(check.status, 1, edit.to + ": " + check.stdout + check.stderr)
            XCTAssertTrue(check.stderr.contains("manifest.json") && check.stderr.contains(edit.found), edit.to + ": " + check.stderr)
        }
    }

    /// A fixture pack of Fixtures/darknet/cfg/yolo-head.cfg with seeded weights, in a temporary folder removed
    /// after the test: the cfg, the weights, the folder and the pack.
    private func seededPack() throws -> (cfg: String, weights: String, dir: URL, pack: URL) {
        let cfg = TestData.fixture("darknet/cfg/yolo-head.cfg").path
        let dir = try TestData.temporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let weights = dir.appendingPathComponent("w.weights").path
        XCTAssertEqual(try CommandRunner.run(["seed-weights", cfg, "--out", weights]).status, 0)
        let pack = dir.appendingPathComponent("pack")
        XCTAssertEqual(try CommandRunner.run(["fixtures", cfg, weights, "--out", pack.path]).status, 0)
        return (cfg, weights, dir, pack)
    }
}
