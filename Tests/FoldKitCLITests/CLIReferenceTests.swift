import FoldKitTestSupport
import Foundation
import XCTest

/// Docs/CLI.md holds every command's `--help` as `foldkit cli-reference` renders it: regenerated here and
/// compared, failing with a diff when someone changed a command without updating the page.
final class CLIReferenceTests: XCTestCase {
    func testDocsHoldTheCurrentHelp() throws {
        let docs = TestData.repositoryRoot.appendingPathComponent("Docs/CLI.md")
        let page = try String(contentsOf: docs, encoding: .utf8)
        let run = try CommandRunner.run(["cli-reference"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let generated = run.stdout.trimmingCharacters(in: .newlines)
        let begin = try XCTUnwrap(generated.components(separatedBy: "\n").first, "no begin marker")
        let end = try XCTUnwrap(generated.components(separatedBy: "\n").last, "no end marker")
        guard let start = page.range(of: begin), let stop = page.range(of: end, range: start.upperBound..<page.endIndex) else {
            return XCTFail("Docs/CLI.md lacks the markers \(begin) ... \(end)")
        }
        let current = String(page[start.lowerBound..<stop.upperBound])
        guard current != generated else { return }
        XCTFail("Docs/CLI.md is stale; run `swift run foldkit cli-reference --write Docs/CLI.md`. Differences:\n" + diff(current, generated))
    }

    /// `diff -u` of the two texts (the first 200 lines of it).
    private func diff(_ old: String, _ new: String) -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("foldkit-cli-reference-\(ProcessInfo.processInfo.processIdentifier)")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let a = dir.appendingPathComponent("Docs-CLI.md"), b = dir.appendingPathComponent("generated.md")
        try? Data(old.utf8).write(to: a)
        try? Data(new.utf8).write(to: b)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["diff", "-u", a.path, b.path]
        let out = Pipe()
        process.standardOutput = out
        guard (try? process.run()) != nil else { return "(diff is not available)" }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).prefix(200).joined(separator: "\n")
    }
}
