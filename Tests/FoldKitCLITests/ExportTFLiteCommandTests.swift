import FoldKitTestSupport
import Foundation
import XCTest

/// `foldkit export --format tflite` refuses by name what does not apply to a LiteRT model (the onnx options)
/// and a layer LiteRT has no exact lowering for, exit 1, with no output folder left behind.
final class ExportTFLiteCommandTests: XCTestCase {
    private func seeded(_ cfgText: String? = nil, in dir: URL) throws -> [String] {
        var cfg = TestData.fixture("engines/engine-ops.cfg").path
        if let cfgText {
            cfg = dir.appendingPathComponent("net.cfg").path
            try Data(cfgText.utf8).write(to: URL(fileURLWithPath: cfg))
        }
        let weights = dir.appendingPathComponent("net.weights").path
        XCTAssertEqual(try CommandRunner.run(["seed-weights", cfg, "--seed", "2", "--out", weights]).status, 0)
        return [cfg, weights]
    }

    func testOnnxOnlyOptionsAreRefusedByName() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let files = try seeded(in: dir)
        let out = dir.appendingPathComponent("out")
        for (option, extra) in [
            ("--decode-heads", ["--decode-heads"]), ("--opset", ["--opset", "17"]), ("--input-layout", ["--input-layout", "nhwc"]),
            ("--no-test-data", ["--no-test-data"]),
        ] {
            let run = try CommandRunner.run(["export"] + files + ["--format", "tflite", "--out", out.path] + extra)
            XCTAssertEqual(run.status, 1, "\(option): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains("Error: \(option)") && run.stderr.contains("is for onnx"), "\(option): \(run.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: out.path), "\(option): nothing written")
        }
        let onnx = try CommandRunner.run(["export"] + files + ["--format", "onnx", "--opset", "18", "--out", out.path])
        XCTAssertEqual(onnx.status, 0, "--opset still applies to onnx: \(onnx.stderr)")
    }

    /// A max pool whose windows lie wholly in darknet's padding: LiteRT would give -FLT_MAX where FoldKit gives
    /// -infinity, so the layer is refused by name and no folder is written.
    func testALayerWithoutAnExactLoweringIsRefusedByNameAndNothingIsWritten() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let files = try seeded("[net]\nwidth=4\nheight=4\nchannels=1\n\n[maxpool]\nsize=2\nstride=1\npadding=8\n", in: dir)
        let out = dir.appendingPathComponent("out")
        let run = try CommandRunner.run(["export"] + files + ["--format", "tflite", "--out", out.path])
        XCTAssertEqual(run.status, 1, run.stderr)
        XCTAssertTrue(run.stderr.contains("layer 0 [maxpool]") && run.stderr.contains("no exact LiteRT lowering"), run.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(), ["net.cfg", "net.weights"], "no folder, no temporary")
    }

    /// The export's JSON document: format tflite, model.tflite, nhwc input, operators counted by builtin.
    func testJSONDocumentDescribesTheLiteRTModel() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let files = try seeded(in: dir)
        let out = dir.appendingPathComponent("out")
        let run = try CommandRunner.run(["export"] + files + ["--format", "tflite", "--out", out.path, "--json"])
        XCTAssertEqual(run.status, 0, run.stderr)
        for field in [#""format" : "tflite""#, #""model" : "model.tflite""#, #""inputLayout" : "nhwc""#, #""opset" : null"#, #""BATCH_MATMUL" : 1"#] {
            XCTAssertTrue(run.stdout.contains(field), "\(field): \(run.stdout)")
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: out.appendingPathComponent("test_data_set_0/output_0.pb").path))
    }
}
