import FoldKitTestSupport
import Foundation
import XCTest

/// `foldkit export --no-test-data` writes the model alone: the same bytes of model.onnx as with the test data
/// set, no test_data_set_0 folder, and `testData` null in the JSON document.
final class ExportCommandTests: XCTestCase {
    func testNoTestDataWritesTheSameModelAlone() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let cfg = TestData.fixture("engines/engine-ops.cfg").path
        let weights = dir.appendingPathComponent("engine-ops.weights").path
        XCTAssertEqual(try CommandRunner.run(["seed-weights", cfg, "--seed", "3", "--out", weights]).status, 0)
        let full = dir.appendingPathComponent("full"), alone = dir.appendingPathComponent("alone")
        let withData = try CommandRunner.run(["export", cfg, weights, "--format", "onnx", "--out", full.path, "--json"])
        XCTAssertEqual(withData.status, 0, withData.stderr)
        let without = try CommandRunner.run(["export", cfg, weights, "--format", "onnx", "--out", alone.path, "--no-test-data", "--json"])
        XCTAssertEqual(without.status, 0, without.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: full.appendingPathComponent("test_data_set_0/input_0.pb").path))
        XCTAssertFalse(FileManager.default.fileExists(atPath: alone.appendingPathComponent("test_data_set_0").path))
        XCTAssertEqual(
            try Data(contentsOf: alone.appendingPathComponent("model.onnx")), try Data(contentsOf: full.appendingPathComponent("model.onnx")),
            "the model does not depend on whether the test data is written")
        XCTAssertTrue(withData.stdout.contains("\"testData\" : \"test_data_set_0\""), withData.stdout)
        XCTAssertTrue(without.stdout.contains("\"testData\" : null"), without.stdout)
    }
}
