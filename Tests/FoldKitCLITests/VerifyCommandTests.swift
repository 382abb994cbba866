@testable import FoldKit
import FoldKitTestSupport
import Foundation
import XCTest

/// `foldkit verify` with `--fp16`, `--json`, `--image` and `--draw` from the command line: the JSON report
/// is parsed and its fields checked against each other and the documented rule (Docs/Verify.md), and the
/// drawn PNG is decoded.
final class VerifyCommandTests: XCTestCase {
    private func temporaryFolder() throws -> URL {
        let dir = try TestData.temporaryDirectory("foldkit-verify")
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        return dir
    }

    private func readJSON(_ url: URL, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: url))
        return try XCTUnwrap(object as? [String: Any], "JSON report is not an object", file: file, line: line)
    }

    /// Seeded weights for a Fixtures cfg.
    private func seededModel(_ cfgName: String, in dir: URL) throws -> (cfg: String, weights: String) {
        let cfg = TestData.fixture("darknet/cfg/\(cfgName)").path
        let weights = dir.appendingPathComponent("\(cfgName).weights").path
        let seeded = try CommandRunner.run(["seed-weights", cfg, "--out", weights])
        XCTAssertEqual(seeded.status, 0, seeded.stderr)
        return (cfg, weights)
    }

    /// Every layer entry: allowed = atol + relativeTolerance * maxAbsReference, pass == (maxAbsDeviation <= allowed),
    /// relativeDeviation = maxAbsDeviation / maxAbsReference.
    private func checkLayers(_ report: [String: Any], count: Int, atol: Double = 0, file: StaticString = #filePath, line: UInt = #line) throws {
        let layers = try XCTUnwrap(report["layers"] as? [[String: Any]], file: file, line: line)
        XCTAssertEqual(layers.count, count, "one entry per layer", file: file, line: line)
        for (i, layer) in layers.enumerated() {
            XCTAssertEqual(layer["index"] as? Int, i, file: file, line: line)
            let reference = try XCTUnwrap(layer["maxAbsReference"] as? Double, "layer \(i)", file: file, line: line)
            let deviation = try XCTUnwrap(layer["maxAbsDeviation"] as? Double, "layer \(i)", file: file, line: line)
            let relativeTolerance = try XCTUnwrap(layer["relativeTolerance"] as? Double, "layer \(i)", file: file, line: line)
            let allowed = try XCTUnwrap(layer["allowed"] as? Double, "layer \(i)", file: file, line: line)
            XCTAssertTrue(deviation.isFinite && reference.isFinite, "layer \(i): \(deviation) \(reference)", file: file, line: line)
            XCTAssertEqual(allowed, atol + relativeTolerance * reference, accuracy: 1e-12 * max(allowed, 1), "layer \(i) allowed", file: file, line: line)
            XCTAssertEqual(layer["pass"] as? Bool, deviation <= allowed, "layer \(i) pass", file: file, line: line)
            if reference > 0, let relative = layer["relativeDeviation"] as? Double {
                XCTAssertEqual(relative, deviation / reference, accuracy: 1e-9 * max(relative, 1e-30), "layer \(i)", file: file, line: line)
            }
        }
    }

    func testFixtureModelFloat16JSON() throws {
        let dir = try temporaryFolder()
        let (cfg, weights) = try seededModel("yolo-head.cfg", in: dir)
        let network = try DarknetReader.read(cfgPath: cfg, weightsPath: weights)
        let json32 = dir.appendingPathComponent("r32.json"), json16 = dir.appendingPathComponent("r16.json")

        let run32 = try CommandRunner.run(["verify", cfg, weights, "--json", json32.path])
        XCTAssertEqual(run32.status, 0, run32.stdout + run32.stderr)
        let run16 = try CommandRunner.run(["verify", cfg, weights, "--fp16", "--json", json16.path])
        XCTAssertEqual(run16.status, 0, run16.stdout + run16.stderr)
        XCTAssertTrue(run16.stdout.contains("PASS"), run16.stdout)

        let r32 = try readJSON(json32), r16 = try readJSON(json16)
        for r in [r32, r16] {
            XCTAssertEqual(r["tool"] as? String, "foldkit verify")
            XCTAssertEqual(r["version"] as? Int, 1)
            XCTAssertEqual(r["format"] as? String, "darknet")
            XCTAssertEqual(r["verdict"] as? String, "pass")
            XCTAssertEqual((r["files"] as? [String])?.count, 2)
            try checkLayers(r, count: network.layers.count)
            XCTAssertNotNil(r["detections"] as? [String: Any], "yolo-head has a [yolo] head")
        }
        XCTAssertTrue((r16["candidate"] as? String)?.contains("float16") == true, "\(r16["candidate"] ?? "nil")")
        XCTAssertFalse((r32["candidate"] as? String)?.contains("float16") == true)
        // float16 storage is measured only with --fp16 and changes results visibly (11 significant bits).
        XCTAssertEqual((r16["float16StorageDeviation"] as? [Any])?.count, network.layers.count)
        XCTAssertTrue(r32["float16StorageDeviation"] == nil || r32["float16StorageDeviation"] is NSNull)
        func largestRelative(_ r: [String: Any]) -> Double {
            ((r["layers"] as? [[String: Any]]) ?? []).compactMap { $0["relativeDeviation"] as? Double }.max() ?? .nan
        }
        XCTAssertGreaterThan(largestRelative(r16), 1e-5, "float16 should deviate more than float32 rounding")
        XCTAssertLessThan(largestRelative(r32), 1e-5)
        // The float16 budget is larger than the float32 one on every layer.
        let t32 = (r32["layers"] as? [[String: Any]] ?? []).compactMap { $0["relativeTolerance"] as? Double }
        let t16 = (r16["layers"] as? [[String: Any]] ?? []).compactMap { $0["relativeTolerance"] as? Double }
        XCTAssertEqual(t32.count, t16.count)
        for (a, b) in zip(t32, t16) { XCTAssertGreaterThan(b, a) }
    }

    func testStrictToleranceGivesAFailVerdictInJSON() throws {
        let dir = try temporaryFolder()
        let (cfg, weights) = try seededModel("conv-basic.cfg", in: dir)
        let json = dir.appendingPathComponent("r.json")
        let run = try CommandRunner.run(["verify", cfg, weights, "--rtol", "1e-15", "--json", json.path])
        XCTAssertEqual(run.status, 2, run.stdout + run.stderr)
        let report = try readJSON(json)
        XCTAssertEqual(report["verdict"] as? String, "fail")
        let layers = try XCTUnwrap(report["layers"] as? [[String: Any]])
        let firstFailing = layers.first { $0["pass"] as? Bool == false }
        XCTAssertNotNil(firstFailing)
        let first = report["firstLayerOverTolerance"]
        XCTAssertNotNil(first, "a failing report names the first layer over tolerance")
        if let index = firstFailing?["index"] as? Int, let named = first as? [String: Any] {
            XCTAssertEqual(named["index"] as? Int, index, "\(named)")
        } else if let index = firstFailing?["index"] as? Int, let named = first as? Int {
            XCTAssertEqual(named, index)
        }
        try checkLayers(report, count: 9)
    }

    func testFixtureModelImageAndDraw() throws {
        let dir = try temporaryFolder()
        let (cfg, weights) = try seededModel("yolo-head.cfg", in: dir)
        let imagePath = TestData.fixture("images/gradient.png").path
        let drawn = dir.appendingPathComponent("drawn.png"), json = dir.appendingPathComponent("r.json")
        for resize in ["stretch", "letterbox", "center-crop"] {
            try? FileManager.default.removeItem(at: drawn)
            let run = try CommandRunner.run(["verify", cfg, weights, "--image", imagePath, "--resize", resize, "--draw", drawn.path, "--json", json.path])
            XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
            XCTAssertTrue(run.stdout.contains("boxes in image pixels"), run.stdout)
            let picture = try ImageFile.read(path: drawn.path)
            XCTAssertEqual(picture.width, 40, resize)
            XCTAssertEqual(picture.height, 24, resize)
            let report = try readJSON(json)
            XCTAssertTrue((report["input"] as? String)?.contains(resize) == true, "\(report["input"] ?? "nil")")
        }
        // --draw without --image is a usage error.
        let usage = try CommandRunner.run(["verify", cfg, weights, "--draw", drawn.path])
        XCTAssertEqual(usage.status, 1, usage.stdout + usage.stderr)
    }

    /// The real yolo-fastest-1.1 on darknet's dog.jpg: folded and original agree in float16 storage, and the
    /// boxes include a dog (COCO 16), a bicycle (1) and a car (2), as darknet's example picture shows.
    func testYoloFastestOnDogFloat16WithImageDrawAndJSON() throws {
        let folder = "real-models/yolo-fastest-1.1/"
        let cfg = try TestData.sharedFile(folder + "yolo-fastest-1.1.cfg").path
        let weights = try TestData.sharedFile(folder + "yolo-fastest-1.1.weights").path
        let image = try TestData.sharedFile(folder + "dog.jpg").path
        let dir = try temporaryFolder()
        let drawn = dir.appendingPathComponent("dog.png"), json = dir.appendingPathComponent("dog.json")
        let run = try CommandRunner.run(["verify", cfg, weights, "--fp16", "--image", image, "--resize", "letterbox",
                                         "--draw", drawn.path, "--json", json.path])
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        let original = try ImageFile.read(path: image)
        let picture = try ImageFile.read(path: drawn.path)
        XCTAssertEqual(picture.width, original.width)
        XCTAssertEqual(picture.height, original.height)
        XCTAssertNotEqual(picture.pixels, original.pixels, "boxes should be drawn")
        let report = try readJSON(json)
        XCTAssertEqual(report["verdict"] as? String, "pass")
        try checkLayers(report, count: try DarknetReader.read(cfgPath: cfg, weightsPath: nil).layers.count)
        let detections = try XCTUnwrap(report["detections"] as? [String: Any])
        XCTAssertEqual(detections["pass"] as? Bool, true)
        let pairs = try XCTUnwrap(detections["pairs"] as? [[String: Any]])
        let classes = Set(pairs.compactMap { ($0["reference"] as? [String: Any])?["classIndex"] as? Int })
        XCTAssertTrue(classes.isSuperset(of: [16, 1, 2]), "classes found: \(classes.sorted())")
        for pair in pairs { XCTAssertGreaterThanOrEqual(pair["iou"] as? Double ?? 0, 0.99) }
    }
}
