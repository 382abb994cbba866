import FoldKitTestSupport
import Foundation
import XCTest

/// Docs/CLI.md "Progress lines" shows what each command draws on a terminal. This runs each command on a
/// pseudo-terminal (`script`, util-linux) with `CI` unset and compares every line it drew with the
/// documented one, numbers aside; and checks that the commands documented as silent draw nothing.
final class ProgressLinesDocumentationTests: XCTestCase {
    /// `text` with every number (integer or decimal) replaced by N.
    private func shape(_ text: String) -> String {
        text.replacingOccurrences(of: #"[0-9]+(\.[0-9]+)?"#, with: "N", options: .regularExpression)
    }

    /// What `arguments` drew on the terminal's stderr (stdout goes to /dev/null): the redrawn segments,
    /// split at carriage returns and newlines, trailing blanks removed.
    private func drawn(_ arguments: [String]) throws -> [String] {
        let command = ([CommandRunner.executable.path] + arguments).map { "'\($0)'" }.joined(separator: " ") + " > /dev/null"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", command, "/dev/null"]
        var environment = ProcessInfo.processInfo.environment
        environment.removeValue(forKey: "CI")
        environment["TERM"] = "xterm"
        process.environment = environment
        let out = Pipe()
        process.standardOutput = out
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "\(arguments)")
        return String(decoding: data, as: UTF8.self).components(separatedBy: CharacterSet(charactersIn: "\r\n"))
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    func testDocumentedProgressLinesAreWhatTheCommandsDraw() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else {
            if TestData.isContinuousIntegration { XCTFail("script (util-linux) is needed to run foldkit on a pseudo-terminal") }
            throw XCTSkip("/usr/bin/script (util-linux) is absent: cannot run foldkit on a pseudo-terminal")
        }
        let rows = try XCTUnwrap(DocumentedTables.rows(after: "<!-- progress-lines -->", in: try DocumentedTables.page), "no progress-lines table")
        XCTAssertEqual(Set(rows.map { DocumentedTables.codeSpans($0[0]).first ?? "" }), ["convert", "verify", "verify --fp16", "fixtures"])

        let dir = try TestData.temporaryDirectory("foldkit-progress")
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let cfg = TestData.fixture("darknet/cfg/yolo-head.cfg").path
        let weights = dir.appendingPathComponent("w.weights").path
        XCTAssertEqual(try CommandRunner.run(["seed-weights", cfg, "--out", weights]).status, 0)
        for (index, row) in rows.enumerated() {
            let words = (DocumentedTables.codeSpans(row[0]).first ?? "").split(separator: " ").map(String.init)
            let documented = try XCTUnwrap(DocumentedTables.codeSpans(row[1]).first, "row \(row): no line")
            let output = words[0] == "verify" ? [] : ["--out", dir.appendingPathComponent("out\(index)").path]
            let lines = try drawn([words[0], cfg, weights] + words.dropFirst() + output)
            XCTAssertFalse(lines.isEmpty, "\(words): drew nothing on a terminal")
            for line in lines {
                XCTAssertEqual(shape(line), shape(documented), "\(words) drew a line Docs/CLI.md does not show")
            }
        }
        // Documented as silent.
        let pack = dir.appendingPathComponent("out\(rows.firstIndex { $0[0] == "`fixtures`" } ?? 0)").path
        XCTAssertEqual(try drawn(["inspect", cfg, weights]), [], "inspect")
        XCTAssertEqual(try drawn(["fixtures", cfg, weights, "--check", pack]), [], "fixtures --check")
    }
}
