import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit

/// Docs/CLI.md "JSON documents" lists, per command, the top-level keys of its `--json` document: the keys
/// every document has plus the command's own. This runs every command with `--json` on a small fixture
/// (in each of its modes) and fails when the documented and the printed keys differ, either way.
final class JSONKeysDocumentationTests: XCTestCase {
    private func keys(_ data: Data, _ what: String, file: StaticString = #filePath, line: UInt = #line) throws -> Set<String> {
        let object = try JSONSerialization.jsonObject(with: data)
        return Set(try XCTUnwrap(object as? [String: Any], "\(what): not one JSON object", file: file, line: line).keys)
    }

    private func printed(_ arguments: [String], file: StaticString = #filePath, line: UInt = #line) throws -> Set<String> {
        let run = try CommandRunner.run(arguments)
        XCTAssertEqual(run.status, 0, "\(arguments): \(run.stderr)", file: file, line: line)
        return try keys(Data(run.stdout.utf8), arguments.joined(separator: " "), file: file, line: line)
    }

    private func compare(
        _ command: String, documented: Set<String>, printed: Set<String>, mode: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        let undocumented = printed.subtracting(documented).sorted(), missing = documented.subtracting(printed).sorted()
        XCTAssertTrue(
            undocumented.isEmpty && missing.isEmpty,
            "\(command) (\(mode)): printed but not in Docs/CLI.md: \(undocumented); in Docs/CLI.md but not printed: \(missing)",
            file: file, line: line)
    }

    func testDocumentedKeysAreThePrintedKeys() throws {
        let page = try DocumentedTables.page
        let common = try XCTUnwrap(DocumentedTables.jsonKeys("every document", in: page), "no json-keys table for every document")
        XCTAssertEqual(common, ["tool", "toolVersion", "schemaVersion", "filesRead"])
        func documented(_ command: String) throws -> Set<String> {
            common.union(try XCTUnwrap(DocumentedTables.jsonKeys(command, in: page), "Docs/CLI.md has no json-keys table for \(command)"))
        }

        let dir = try TestData.temporaryDirectory("foldkit-json-keys")
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let cfg = TestData.fixture("darknet/cfg/yolo-head.cfg").path
        let weights = dir.appendingPathComponent("w.weights").path
        XCTAssertEqual(try CommandRunner.run(["seed-weights", cfg, "--out", weights]).status, 0)
        let blobs = dir.appendingPathComponent("blobs").path, pack = dir.appendingPathComponent("fx").path

        compare(
            "convert", documented: try documented("convert"), printed: try printed(["convert", cfg, weights, "--out", blobs, "--json"]), mode: "")
        let fixtures = try documented("fixtures")
        compare("fixtures", documented: fixtures, printed: try printed(["fixtures", cfg, weights, "--out", pack, "--json"]), mode: "writing")
        compare("fixtures", documented: fixtures, printed: try printed(["fixtures", cfg, weights, "--check", pack, "--json"]), mode: "--check")
        let inspect = try documented("inspect")
        compare("inspect", documented: inspect, printed: try printed(["inspect", cfg, weights, "--json"]), mode: "with weights")
        compare("inspect", documented: inspect, printed: try printed(["inspect", cfg, "--json"]), mode: "cfg alone")
        let verify = try documented("verify")
        compare("verify", documented: verify, printed: try printed(["verify", cfg, weights, "--json", "-"]), mode: "--json -")
        let report = dir.appendingPathComponent("r.json")
        let fp16 = try CommandRunner.run(["verify", cfg, weights, "--blobs", blobs, "--fp16", "--json", report.path])
        XCTAssertEqual(fp16.status, 0, fp16.stdout + fp16.stderr)
        compare("verify", documented: verify, printed: try keys(Data(contentsOf: report), "verify --json FILE"), mode: "--blobs --fp16 --json FILE")
        // The verify keys match the library's report type too (what Docs/Verify.md describes).
        XCTAssertEqual(
            try keys(JSONOutput.encode(JSONDecoder().decode(VerificationReport.self, from: Data(contentsOf: report))), "re-encoded"), verify)
        let bench = dir.appendingPathComponent("bench.json")
        let run = try CommandRunner.run(["bench", "--forward-only", "--json", bench.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        compare("bench", documented: try documented("bench"), printed: try keys(Data(contentsOf: bench), "bench"), mode: "no figures")
    }
}
