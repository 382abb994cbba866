import FoldKitDarknet
import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit

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
    /// The per-precision layer lists of a version-2 report, float32 first.
    private func precisions(_ report: [String: Any], file: StaticString = #filePath, line: UInt = #line) throws -> [[String: Any]] {
        try XCTUnwrap(report["precisions"] as? [[String: Any]], file: file, line: line)
    }

    /// Every layer's numbers in every precision agree with the documented rule (Docs/Verify.md "Tolerance"):
    /// fromControl = K x control deviation, allowed = atol + max(floor, fromControl, carried) (or
    /// atol + rtol x max|ref| with --rtol), pass = deviation <= allowed, relative = deviation / max|ref|.
    private func checkLayers(
        _ report: [String: Any], count: Int, atol: Double = 0, rtol: Double? = nil,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        for precision in try precisions(report, file: file, line: line) {
            let name = precision["precision"] as? String ?? "?"
            let factor = try XCTUnwrap(precision["controlFactor"] as? Double, file: file, line: line)
            let layers = try XCTUnwrap(precision["layers"] as? [[String: Any]], file: file, line: line)
            XCTAssertEqual(layers.count, count, "\(name): one entry per layer", file: file, line: line)
            for (i, layer) in layers.enumerated() {
                let what = "\(name) layer \(i)"
                XCTAssertEqual(layer["index"] as? Int, i, file: file, line: line)
                let candidate = try XCTUnwrap(layer["candidate"] as? [String: Any], what, file: file, line: line)
                let control = try XCTUnwrap(layer["control"] as? [String: Any], what, file: file, line: line)
                let reference = try XCTUnwrap(candidate["maxAbsReference"] as? Double, what, file: file, line: line)
                let deviation = try XCTUnwrap(candidate["maxAbsDeviation"] as? Double, what, file: file, line: line)
                let controlDeviation = try XCTUnwrap(control["maxAbsDeviation"] as? Double, what, file: file, line: line)
                let floor = try XCTUnwrap(layer["floor"] as? Double, what, file: file, line: line)
                let fromControl = try XCTUnwrap(layer["fromControl"] as? Double, what, file: file, line: line)
                let carried = layer["carried"] as? Double ?? 0
                let allowed = try XCTUnwrap(layer["allowed"] as? Double, what, file: file, line: line)
                XCTAssertTrue(
                    deviation.isFinite && reference.isFinite && controlDeviation.isFinite, "\(what): \(deviation) \(reference)", file: file,
                    line: line)
                XCTAssertEqual(fromControl, factor * controlDeviation, accuracy: 1e-12 * max(fromControl, 1e-30), what, file: file, line: line)
                let expected = rtol.map { atol + $0 * reference } ?? atol + max(floor, fromControl, carried)
                XCTAssertEqual(allowed, expected, accuracy: 1e-12 * max(allowed, 1e-30), "\(what) allowed", file: file, line: line)
                XCTAssertEqual(layer["pass"] as? Bool, deviation <= allowed, "\(what) pass", file: file, line: line)
                if reference > 0, let relative = candidate["relativeDeviation"] as? Double {
                    XCTAssertEqual(relative, deviation / reference, accuracy: 1e-9 * max(relative, 1e-30), what, file: file, line: line)
                }
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
            XCTAssertEqual(r["schemaVersion"] as? Int, 3)
            XCTAssertEqual(r["version"] as? Int, 3, "the version-2 name of the schema version, kept")
            XCTAssertEqual(r["format"] as? String, "darknet")
            XCTAssertEqual(r["verdict"] as? String, "pass")
            XCTAssertEqual((r["files"] as? [String])?.count, 2)
            try checkLayers(r, count: network.layers.count)
            XCTAssertNotNil(r["detections"] as? [String: Any], "yolo-head has a [yolo] head")
        }
        XCTAssertTrue((r16["candidate"] as? String)?.contains("float16") == true, "\(r16["candidate"] ?? "nil")")
        XCTAssertFalse((r32["candidate"] as? String)?.contains("float16") == true)
        // float16 storage is judged only with --fp16, after float32 (the fold is judged in float32 in both modes),
        // and changes results visibly (11 significant bits).
        XCTAssertEqual(try precisions(r32).compactMap { $0["precision"] as? String }, ["float32"])
        XCTAssertEqual(try precisions(r16).compactMap { $0["precision"] as? String }, ["float32", "float16 storage"])
        func largestRelative(_ precision: [String: Any]) -> Double {
            ((precision["layers"] as? [[String: Any]]) ?? []).compactMap { ($0["candidate"] as? [String: Any])?["relativeDeviation"] as? Double }
                .max() ?? .nan
        }
        XCTAssertGreaterThan(largestRelative(try precisions(r16)[1]), 1e-5, "float16 should deviate more than float32 rounding")
        XCTAssertLessThan(largestRelative(try precisions(r32)[0]), 1e-5)
        // The float16 floor is larger than the float32 one on every layer.
        let f32 = (try precisions(r16)[0]["layers"] as? [[String: Any]] ?? []).compactMap { $0["floor"] as? Double }
        let f16 = (try precisions(r16)[1]["layers"] as? [[String: Any]] ?? []).compactMap { $0["floor"] as? Double }
        XCTAssertEqual(f32.count, network.layers.count)
        XCTAssertEqual(f32.count, f16.count)
        for (a, b) in zip(f32, f16) { XCTAssertGreaterThan(b, a) }
    }

    func testStrictToleranceGivesAFailVerdictInJSON() throws {
        let dir = try temporaryFolder()
        let (cfg, weights) = try seededModel("conv-basic.cfg", in: dir)
        let json = dir.appendingPathComponent("r.json")
        let run = try CommandRunner.run(["verify", cfg, weights, "--rtol", "1e-15", "--json", json.path])
        XCTAssertEqual(run.status, 2, run.stdout + run.stderr)
        let report = try readJSON(json)
        XCTAssertEqual(report["verdict"] as? String, "fail")
        let layers = try XCTUnwrap(try precisions(report).first?["layers"] as? [[String: Any]])
        let firstFailing = layers.first { $0["pass"] as? Bool == false }
        XCTAssertNotNil(firstFailing)
        let first = report["firstLayerOverTolerance"]
        XCTAssertNotNil(first, "a failing report names the first layer over tolerance")
        if let index = firstFailing?["index"] as? Int, let named = first as? [String: Any] {
            XCTAssertEqual(named["index"] as? Int, index, "\(named)")
        } else if let index = firstFailing?["index"] as? Int, let named = first as? Int {
            XCTAssertEqual(named, index)
        }
        try checkLayers(report, count: 9, rtol: 1e-15)
    }

    func testFixtureModelImageAndDraw() throws {
        let dir = try temporaryFolder()
        let (cfg, weights) = try seededModel("yolo-head.cfg", in: dir)
        let imagePath = TestData.fixture("images/gradient.png").path
        let drawn = dir.appendingPathComponent("drawn.png"), json = dir.appendingPathComponent("r.json")
        for resize in ["stretch", "letterbox", "center-crop"] {
            try? FileManager.default.removeItem(at: drawn)
            let run = try CommandRunner.run([
                "verify", cfg, weights, "--image", imagePath, "--resize", resize, "--draw", drawn.path, "--json", json.path,
            ])
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
        let run = try CommandRunner.run([
            "verify", cfg, weights, "--fp16", "--image", image, "--resize", "letterbox",
            "--draw", drawn.path, "--json", json.path,
        ])
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
