import FoldKitTestSupport
import Foundation
import XCTest

/// `foldkit convert --out DIR` into a folder that already exists: a successful convert replaces the old
/// content completely and leaves no temporary folder beside it; a failed convert leaves the old folder
/// byte-identical and nothing beside it either.
final class ConvertOutputFolderTests: XCTestCase {
    private let cfg = TestData.fixture("darknet/cfg/conv-basic.cfg").path

    /// Every file below `folder` (hidden ones included) with its bytes, keyed by relative path.
    private func snapshot(_ folder: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
        while let url = enumerator?.nextObject() as? URL {
            guard try url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true else { continue }
            files[String(url.standardizedFileURL.path.dropFirst(folder.standardizedFileURL.path.count + 1))] = try Data(contentsOf: url)
        }
        return files
    }

    /// A parent folder holding only `out/` with old content, and seeded weights kept elsewhere.
    private func setUp(file: StaticString = #filePath, line: UInt = #line) throws -> (parent: URL, out: URL, weights: URL) {
        let root = try TestData.temporaryDirectory("foldkit-convert-out")
        addTeardownBlock { try? FileManager.default.removeItem(at: root) }
        let weights = root.appendingPathComponent("conv-basic.weights")
        XCTAssertEqual(try CommandRunner.run(["seed-weights", cfg, "--out", weights.path]).status, 0, file: file, line: line)
        let parent = root.appendingPathComponent("parent")
        let out = parent.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try Data("old".utf8).write(to: out.appendingPathComponent("old.bin"))
        try Data("old manifest".utf8).write(to: out.appendingPathComponent("manifest.json"))
        try Data("nested".utf8).write(to: out.appendingPathComponent("sub/nested.txt"))
        return (parent, out, weights)
    }

    func testConvertReplacesAnExistingFolderCompletely() throws {
        let (parent, out, weights) = try setUp()
        let run = try CommandRunner.run(["convert", cfg, weights.path, "--out", out.path])
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: parent.path), ["out"], "nothing left beside the output folder")
        let files = try snapshot(out)
        XCTAssertNil(files["old.bin"])
        XCTAssertNil(files["sub/nested.txt"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.appendingPathComponent("sub").path))
        let manifest = try XCTUnwrap(files["manifest.json"])
        XCTAssertNotEqual(manifest, Data("old manifest".utf8))
        XCTAssertNoThrow(try JSONSerialization.jsonObject(with: manifest))
        // A fresh convert into a new folder writes the same file names and bytes (the manifest aside, which names paths).
        let fresh = parent.deletingLastPathComponent().appendingPathComponent("fresh")
        XCTAssertEqual(try CommandRunner.run(["convert", cfg, weights.path, "--out", fresh.path]).status, 0)
        let freshFiles = try snapshot(fresh)
        XCTAssertEqual(Set(files.keys), Set(freshFiles.keys))
        for (name, data) in freshFiles where name != "manifest.json" { XCTAssertEqual(files[name], data, name) }
    }

    func testFailedConvertLeavesTheOldFolderByteIdentical() throws {
        let (parent, out, weights) = try setUp()
        let before = try snapshot(out)
        // Truncated weights: the reader refuses them (exit 1).
        let truncated = weights.deletingLastPathComponent().appendingPathComponent("truncated.weights")
        let bytes = try Data(contentsOf: weights)
        try bytes.prefix(bytes.count - 10).write(to: truncated)
        let run = try CommandRunner.run(["convert", cfg, truncated.path, "--out", out.path])
        XCTAssertEqual(run.status, 1, run.stdout + run.stderr)
        XCTAssertEqual(try snapshot(out), before)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: parent.path), ["out"], "no temporary folder left beside it")
    }
}
