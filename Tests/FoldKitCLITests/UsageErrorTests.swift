import FoldKitTestSupport
import Foundation
import XCTest

/// Mistakes a new user makes, answered at once with exit 1 and a message that says what to do
/// (Docs/CLI.md "Conventions"): a misspelt command, a numeric option out of its range, a missing input
/// file, found before any model is read.
final class UsageErrorTests: XCTestCase {
    private func temporaryFolder() throws -> URL {
        let dir = try TestData.temporaryDirectory("foldkit-usage")
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        return dir
    }

    func testMisspeltCommandSuggestsTheNearestOnes() throws {
        for (typed, suggested) in [("convrt", ["convert"]), ("verfy", ["verify"]), ("Inspect", ["inspect"]), ("fixture", ["fixtures"])] {
            let run = try CommandRunner.run([typed, "a.cfg", "b.weights", "--out", "x"])
            XCTAssertEqual(run.status, 1, typed)
            XCTAssertEqual(run.stdout, "", typed)
            for name in suggested { XCTAssertTrue(run.stderr.contains("did you mean '\(name)'"), "\(typed): \(run.stderr)") }
            XCTAssertTrue(run.stderr.hasPrefix("error: unknown command '\(typed)'"), run.stderr)
            XCTAssertFalse(run.stderr.contains("unexpected argument"), run.stderr)
        }
        // Nothing near: the commands are listed, none is suggested.
        let far = try CommandRunner.run(["frobnicate"])
        XCTAssertEqual(far.status, 1)
        XCTAssertFalse(far.stderr.contains("did you mean"), far.stderr)
        XCTAssertTrue(far.stderr.contains("commands: convert, export, verify, fixtures, inspect, seed-weights, bench"), far.stderr)
        // Real commands, options and help still parse.
        XCTAssertEqual(try CommandRunner.run(["help", "verify"]).status, 0)
        XCTAssertEqual(try CommandRunner.run(["--version"]).status, 0)
    }

    /// Every numeric option out of its range: exit 1 before any file is opened (the model named does not
    /// exist), naming the option, the value and the range.
    func testNumericOptionsOutOfRangeAreUsageErrors() throws {
        let model = ["/nonexistent/m.cfg", "/nonexistent/m.weights"]
        let cases: [(arguments: [String], option: String, value: String, range: String)] = [
            (["verify"] + model + ["--threshold", "1.5"], "--threshold", "1.5", "[0, 1]"),
            (["verify"] + model + ["--threshold=-0.1"], "--threshold", "-0.1", "[0, 1]"),
            (["verify"] + model + ["--nms", "2"], "--nms", "2.0", "[0, 1]"),
            (["verify"] + model + ["--min-iou", "1.01"], "--min-iou", "1.01", "[0, 1]"),
            (["verify"] + model + ["--atol=-1e-3"], "--atol", "-0.001", ">= 0"),
            (["verify"] + model + ["--rtol", "nan"], "--rtol", "nan", ">= 0"),
            (["verify"] + model + ["--rtol", "inf"], "--rtol", "inf", ">= 0"),
            (["verify"] + model + ["--bn-epsilon=-1e-5"], "--bn-epsilon", "-1e-05", ">= 0"),
            (["convert"] + model + ["--out", "o", "--height", "0"], "--height", "0", ">= 1"),
            (["inspect"] + model + ["--width=-8"], "--width", "-8", ">= 1"),
            (["fixtures"] + model + ["--check", "p", "--rtol=-1"], "--rtol", "-1.0", ">= 0"),
            (["bench", "--runs", "0"], "--runs", "0", ">= 1"),
            (["bench", "--input-size", "0"], "--input-size", "0", ">= 1"),
            (["bench", "--classes", "0"], "--classes", "0", ">= 1"),
            (["bench", "--decode-input-sizes", "288,100"], "--decode-input-sizes", "100", "multiple of 32"),
        ]
        for (arguments, option, value, range) in cases {
            let run = try CommandRunner.run(arguments)
            XCTAssertEqual(run.status, 1, "\(arguments): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains("\(option) \(value) is out of range"), "\(arguments): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains(range), "\(arguments): \(run.stderr)")
            XCTAssertFalse(run.stderr.contains("/nonexistent"), "checked before any file: \(run.stderr)")
        }
    }

    /// The edges of the ranges are accepted; with --threshold 1 no box can score above it, and the report
    /// says that neither network produced one rather than claiming an IoU of 1.
    func testRangeEdgesAreAcceptedAndNoBoxIsNoIoU() throws {
        let dir = try temporaryFolder()
        let cfg = TestData.fixture("darknet/cfg/yolo-head.cfg").path
        let weights = dir.appendingPathComponent("w.weights").path
        XCTAssertEqual(try CommandRunner.run(["seed-weights", cfg, "--out", weights]).status, 0)
        let json = dir.appendingPathComponent("r.json")
        let run = try CommandRunner.run([
            "verify", cfg, weights, "--threshold", "1", "--nms", "0", "--min-iou", "1", "--atol", "0", "--bn-epsilon", "0", "--json", json.path,
        ])
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        XCTAssertTrue(run.stdout.contains("boxes agree: neither network produced a box above the threshold 1.0"), String(run.stdout.suffix(800)))
        XCTAssertFalse(run.stdout.contains("smallest IoU"), String(run.stdout.suffix(800)))
        let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: json)) as? [String: Any])
        let detections = try XCTUnwrap(report["detections"] as? [String: Any])
        XCTAssertEqual(detections["referenceCount"] as? Int, 0)
        XCTAssertNil(detections["smallestIoU"], "no IoU was measured")
        XCTAssertNil(detections["controlSmallestIoU"], "no IoU was measured")
        // With boxes (the default threshold) the smallest IoU is there.
        let boxes = try CommandRunner.run(["verify", cfg, weights, "--json", "-"])
        let withBoxes = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(boxes.stdout.utf8)) as? [String: Any])
        XCTAssertNotNil((withBoxes["detections"] as? [String: Any])?["smallestIoU"] as? Double)
    }

    /// A missing input is reported before the model is read: the model here is not even a valid cfg, so
    /// reading it first would have failed on it instead.
    func testMissingInputsAreFoundBeforeTheModelIsRead() throws {
        let dir = try temporaryFolder()
        let cfg = dir.appendingPathComponent("broken.cfg"), weights = dir.appendingPathComponent("broken.weights")
        try Data("this is not a cfg\n".utf8).write(to: cfg)
        try Data(count: 64).write(to: weights)
        let model = [cfg.path, weights.path]
        let missing = dir.appendingPathComponent("missing").path
        let emptyFolder = dir.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: emptyFolder, withIntermediateDirectories: true)
        let cases: [(arguments: [String], named: String, says: String)] = [
            (["verify"] + model + ["--image", missing + ".jpg"], missing + ".jpg", "--image: file not found"),
            (["verify"] + model + ["--input", missing + ".npy"], missing + ".npy", "--input: file not found"),
            (["verify"] + model + ["--names", missing + ".names"], missing + ".names", "--names: file not found"),
            (["verify"] + model + ["--blobs", missing], missing, "--blobs: folder not found"),
            (["verify"] + model + ["--blobs", emptyFolder.path], emptyFolder.appendingPathComponent("manifest.json").path, "no manifest.json"),
            (["verify"] + model + ["--report", missing + "/audit.html"], missing + "/audit.html", "does not exist"),
            (["verify"] + model + ["--image", dir.path], dir.path, "is a folder"),
            (
                ["fixtures"] + model + ["--image", missing + ".png", "--out", dir.appendingPathComponent("fx").path], missing + ".png",
                "file not found"
            ),
            (["fixtures"] + model + ["--check", missing], missing, "--check: folder not found"),
        ]
        for (arguments, named, says) in cases {
            let run = try CommandRunner.run(arguments)
            XCTAssertEqual(run.status, 1, "\(arguments): \(run.stderr)")
            XCTAssertTrue(run.stderr.hasPrefix("error: \(named): "), "\(arguments): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains(says), "\(arguments): \(run.stderr)")
            XCTAssertFalse(run.stderr.contains("broken."), "the model was read first: \(run.stderr)")
        }
        // With every input present the model is what fails, as before.
        let image = TestData.fixture("images/gradient.png").path
        let run = try CommandRunner.run(["verify"] + model + ["--image", image])
        XCTAssertEqual(run.status, 1)
        XCTAssertTrue(run.stderr.contains("broken.cfg"), run.stderr)
    }
}
