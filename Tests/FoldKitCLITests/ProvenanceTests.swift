import FoldKitBlobFormat
import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit
@testable import FoldKitIO

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Every report names the tool version and the SHA-256 of every file it read (Docs/CLI.md "JSON
/// documents", Docs/Verify.md "Provenance"): verify's text, JSON and audit page, and the --json documents
/// of convert, inspect and fixtures. Each digest is compared with one computed here from the whole file
/// (`BlobChecksum`; the tool hashes in chunks as it reads), whose digest `PlatformSHA256Tests` checks
/// against the NIST vectors and coreutils' `sha256sum`.
final class ProvenanceTests: XCTestCase {
    private func temporaryFolder() throws -> URL {
        let dir = try TestData.temporaryDirectory("foldkit-provenance")
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        return dir
    }

    private func sha256(_ path: String) throws -> String { BlobChecksum.sha256Hex(try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// `filesRead` of a JSON document as (role, path, sha256) rows, checked against the files themselves.
    private func filesRead(_ json: [String: Any], file: StaticString = #filePath, line: UInt = #line) throws -> [(role: String, path: String)] {
        let rows = try XCTUnwrap(json["filesRead"] as? [[String: Any]], "no filesRead", file: file, line: line)
        return try rows.map { row in
            let path = try XCTUnwrap(row["path"] as? String, file: file, line: line)
            XCTAssertEqual(row["sha256"] as? String, try sha256(path), path, file: file, line: line)
            let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
            XCTAssertEqual(row["bytes"] as? Int, size, path, file: file, line: line)
            return (try XCTUnwrap(row["role"] as? String, file: file, line: line), path)
        }
    }

    private func object(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String: Any] {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], String(text.prefix(300)), file: file, line: line)
    }

    /// A detector with seeded weights, converted: (cfg, weights, blobs, names, float64 input, image).
    private func subject(in dir: URL) throws -> (cfg: String, weights: String, blobs: String, names: String, input: String, image: String) {
        let cfg = TestData.fixture("darknet/cfg/yolo-head.cfg").path
        let weights = dir.appendingPathComponent("yolo-head.weights").path
        XCTAssertEqual(try CommandRunner.run(["seed-weights", cfg, "--out", weights]).status, 0)
        let blobs = dir.appendingPathComponent("blobs").path
        let convert = try CommandRunner.run(["convert", cfg, weights, "--out", blobs])
        XCTAssertEqual(convert.status, 0, convert.stderr)
        let names = dir.appendingPathComponent("two.names").path
        try "cat\ndog\n".write(toFile: names, atomically: true, encoding: .utf8)
        // yolo-head takes (1, 3, 8, 8): float64 values (numpy's default dtype), i / 193.
        let input = dir.appendingPathComponent("x64.npy")
        var bytes = NPYFile.header(descr: "<f8", shape: [1, 3, 8, 8])
        for i in 0..<192 { withUnsafeBytes(of: (Double(i) / 193).bitPattern.littleEndian) { bytes.append(contentsOf: $0) } }
        try bytes.write(to: input)
        return (cfg, weights, blobs, names, input.path, TestData.fixture("images/gradient.png").path)
    }

    /// `verify --blobs` says in text, JSON and page that the candidate ran from those blob bytes, names
    /// the folder, and lists every file read with its SHA-256: model files, --input, --names, the
    /// blobs' manifest.json; the --input's float64 cast is stated on stderr and in the report.
    func testVerifyNamesEveryFileItReadWithItsDigest() throws {
        let dir = try temporaryFolder()
        let s = try subject(in: dir)
        let json = dir.appendingPathComponent("r.json"), page = dir.appendingPathComponent("audit.html")
        let run = try CommandRunner.run([
            "verify", s.cfg, s.weights, "--blobs", s.blobs, "--input", s.input, "--names", s.names, "--json", json.path, "--report", page.path,
        ])
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        let manifest = URL(fileURLWithPath: s.blobs).appendingPathComponent("manifest.json").path
        let expected: [(role: String, path: String)] = [
            ("model", s.cfg), ("model", s.weights), ("input", s.input), ("class names", s.names), ("blob manifest", manifest),
        ]

        let report = try object(String(decoding: try Data(contentsOf: json), as: UTF8.self))
        let rows = try filesRead(report)
        XCTAssertEqual(rows.map(\.role), expected.map(\.role))
        XCTAssertEqual(rows.map(\.path), expected.map(\.path))
        XCTAssertEqual(report["toolVersion"] as? String, FoldKitVersion.string)
        XCTAssertEqual(report["blobFolder"] as? String, s.blobs)
        XCTAssertEqual(report["candidate"] as? String, "folded network read from the blob files in \(s.blobs), float32")
        let inputRow = try XCTUnwrap((report["filesRead"] as? [[String: Any]])?.first { $0["role"] as? String == "input" })
        let note = try XCTUnwrap(inputRow["note"] as? String)
        XCTAssertTrue(note.hasPrefix("float64 (<f8) cast to float32"), note)
        XCTAssertTrue(run.stderr.contains("note: input \(s.input): \(note)"), run.stderr)

        // The text report: the tool version, then each file with its digest.
        XCTAssertTrue(run.stdout.contains("foldkit \(FoldKitVersion.string) verify"), String(run.stdout.prefix(600)))
        for (role, path) in expected {
            XCTAssertTrue(run.stdout.contains("  \(role): \(path) ("), "\(role) \(path) not in the text report")
            XCTAssertTrue(run.stdout.contains(try sha256(path)), "\(path)'s digest not in the text report")
        }
        XCTAssertTrue(run.stdout.contains("candidate: folded network read from the blob files in \(s.blobs)"), String(run.stdout.prefix(1500)))

        // The audit page: one row per file, with role and digest, the version and the blob folder.
        let html = try String(contentsOf: page, encoding: .utf8)
        let document = try XMLDocument(contentsOf: page, options: [])
        let pageRows = try document.nodes(forXPath: "//*[local-name()='section'][@id='files-read']//*[local-name()='tr'][@data-sha256]")
            .compactMap { $0 as? XMLElement }
        // Looked up among the attributes: FoundationXML's `attribute(forName:)` misses unprefixed attributes of
        // elements in a default namespace.
        func attribute(_ element: XMLElement, _ name: String) -> String {
            element.attributes?.first { ($0.localName ?? $0.name) == name }?.stringValue ?? ""
        }
        XCTAssertEqual(pageRows.map { attribute($0, "data-role") }, expected.map(\.role))
        XCTAssertEqual(pageRows.map { attribute($0, "data-sha256") }, try expected.map { try sha256($0.path) })
        XCTAssertTrue(html.contains("foldkit \(FoldKitVersion.string)"), "no tool version on the page")
        XCTAssertTrue(html.contains("ran from the blob files in \(s.blobs)"), "the page does not say the candidate ran from the blobs")
    }

    /// Without --blobs the report is not the same: no blob folder, no manifest, the candidate is the fold
    /// pass's result; the --image is named with its digest.
    func testVerifyWithoutBlobsSaysSoAndNamesTheImage() throws {
        let dir = try temporaryFolder()
        let s = try subject(in: dir)
        let run = try CommandRunner.run(["verify", s.cfg, s.weights, "--image", s.image, "--json", "-"])
        XCTAssertEqual(run.status, 0, run.stderr)
        let report = try object(run.stdout)
        XCTAssertTrue(report.keys.contains("blobFolder") && report["blobFolder"] is NSNull, "blobFolder is null without --blobs")
        XCTAssertEqual(report["candidate"] as? String, "folded network, float32")
        XCTAssertEqual(try filesRead(report).map(\.role), ["model", "model", "image"])
        XCTAssertEqual(try filesRead(report).last?.path, s.image)
        XCTAssertFalse(run.stderr.contains("note:"), "nothing was cast: \(run.stderr)")
    }

    /// convert, inspect and fixtures (writing and --check) name the files they read in their --json documents.
    func testOtherDocumentsNameTheFilesTheyRead() throws {
        let dir = try temporaryFolder()
        let s = try subject(in: dir)
        let convert = try CommandRunner.run(["convert", s.cfg, s.weights, "--out", dir.appendingPathComponent("b").path, "--json"])
        XCTAssertEqual(try filesRead(try object(convert.stdout)).map(\.path), [s.cfg, s.weights])
        let inspect = try CommandRunner.run(["inspect", s.cfg, "--json"])
        XCTAssertEqual(try filesRead(try object(inspect.stdout)).map(\.path), [s.cfg])
        let pack = dir.appendingPathComponent("fx").path
        let fixtures = try CommandRunner.run(["fixtures", s.cfg, s.weights, "--input", s.input, "--out", pack, "--json"])
        XCTAssertEqual(fixtures.status, 0, fixtures.stderr)
        let written = try filesRead(try object(fixtures.stdout))
        XCTAssertEqual(written.map(\.role), ["model", "model", "input"])
        XCTAssertTrue(fixtures.stderr.contains("note: input \(s.input): float64 (<f8) cast to float32"), fixtures.stderr)
        let check = try CommandRunner.run(["fixtures", s.cfg, s.weights, "--check", pack, "--json"])
        XCTAssertEqual(check.status, 0, check.stderr)
        XCTAssertEqual(try filesRead(try object(check.stdout)).map(\.role), ["model", "model", "fixture manifest"])
    }

    /// A float64 value past float32's range in --input: exit 1 naming the file and the element, before
    /// anything runs.
    func testFloat64InputBeyondFloat32IsRefused() throws {
        let dir = try temporaryFolder()
        let s = try subject(in: dir)
        let input = dir.appendingPathComponent("big.npy")
        var bytes = NPYFile.header(descr: ">f8", shape: [3, 8, 8])
        for i in 0..<192 { withUnsafeBytes(of: (i == 70 ? -1e300 : 0.5).bitPattern.bigEndian) { bytes.append(contentsOf: $0) } }
        try bytes.write(to: input)
        let run = try CommandRunner.run(["verify", s.cfg, s.weights, "--input", input.path])
        XCTAssertEqual(run.status, 1, run.stdout)
        XCTAssertTrue(run.stderr.contains("big.npy") && run.stderr.contains("element 70 [1, 0, 6]"), run.stderr)
        XCTAssertEqual(run.stdout, "")
    }
}
