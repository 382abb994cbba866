import FoldKitCore
import Foundation
import XCTest

@testable import FoldKit
@testable import FoldKitIO

/// What `AtomicOutputDirectory` may replace, and that a commit or discard leaves nothing beside the
/// destination (Docs/Security.md, "Output safety").
final class AtomicOutputDirectoryTests: XCTestCase {
    private var parent: URL!

    override func setUpWithError() throws {
        parent = FileManager.default.temporaryDirectory.appendingPathComponent("foldkit-atomic-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        addTeardownBlock { [parent] in try? FileManager.default.removeItem(at: parent!) }
    }

    private func write(_ text: String, as name: String, to destination: URL) throws {
        try AtomicOutputDirectory.write(to: destination) { folder in
            try Data(text.utf8).write(to: try folder.url(for: name))
        }
    }

    func testReplacesAnEarlierOutputAndLeavesNothingBesideIt() throws {
        let out = parent.appendingPathComponent("out")
        try write("first", as: "manifest.json", to: out)
        try write("second", as: "manifest.json", to: out)
        XCTAssertEqual(try String(contentsOf: out.appendingPathComponent("manifest.json"), encoding: .utf8), "second")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: parent.path), ["out"])
    }

    func testReplacesAnEmptyFolder() throws {
        let out = parent.appendingPathComponent("out")
        try FileManager.default.createDirectory(at: out, withIntermediateDirectories: false)
        try write("new", as: "manifest.json", to: out)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.path), ["manifest.json"])
    }

    func testRefusesAFileASymbolicLinkAndAForeignFolder() throws {
        let file = parent.appendingPathComponent("file")
        try Data("keep".utf8).write(to: file)
        let target = parent.appendingPathComponent("target")
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: false)
        let link = parent.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        let foreign = parent.appendingPathComponent("foreign")
        try FileManager.default.createDirectory(at: foreign, withIntermediateDirectories: false)
        try Data("mine".utf8).write(to: foreign.appendingPathComponent("notes.txt"))
        for destination in [file, link, foreign] {
            XCTAssertThrowsError(try write("x", as: "manifest.json", to: destination), destination.lastPathComponent) { error in
                XCTAssertEqual((error as? FoldKitError)?.kind, .usage, "\(error)")
            }
        }
        XCTAssertEqual(try String(contentsOf: file, encoding: .utf8), "keep")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link.path), target.path)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: foreign.path), ["notes.txt"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: target.path), [])
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: parent.path)), ["file", "target", "link", "foreign"])
    }

    func testAFailingBodyLeavesNoTemporaryFolderAndUnregistersIt() throws {
        struct Failure: Error {}
        let out = parent.appendingPathComponent("out")
        XCTAssertThrowsError(
            try AtomicOutputDirectory.write(to: out) { folder in
                try Data("half".utf8).write(to: try folder.url(for: "a.bin"))
                throw Failure()
            })
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: parent.path), [])
        XCTAssertTrue(PendingTemporaryItems.registered.allSatisfy { !$0.path.hasPrefix(parent.path) }, "nothing of ours still registered")
    }

    /// What the SIGINT/SIGTERM handler calls (it removes every registered item of the process; XCTest
    /// runs these tests one at a time, so only this test's folder is registered).
    func testRemoveAllDeletesARegisteredFolderBeingWritten() throws {
        let folder = try AtomicOutputDirectory(destination: parent.appendingPathComponent("out"))
        try Data("half".utf8).write(to: try folder.url(for: "a.bin"))
        let removed = PendingTemporaryItems.removeAll()
        XCTAssertTrue(removed.contains { $0.path == folder.temporary.path }, "\(removed)")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: parent.path), [], "neither the folder nor a .discard- sibling")
        folder.discard()
    }

    /// By default a commit is atomic only (nothing flushed); `durable` flushes every file, the folder and
    /// the parent. Both leave the same complete output.
    func testOnlyDurableCommitsFlushToDisk() throws {
        for durable in [false, true] {
            let out = parent.appendingPathComponent(durable ? "durable" : "atomic")
            let folder = try AtomicOutputDirectory(destination: out, durable: durable)
            for name in ["a.bin", "b.bin", "manifest.json"] { try Data(name.utf8).write(to: try folder.url(for: name)) }
            try folder.commit()
            XCTAssertEqual(folder.flushedItems, durable ? 3 + 2 : 0, "durable: \(durable)")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.path).sorted(), ["a.bin", "b.bin", "manifest.json"])
            XCTAssertEqual(try String(contentsOf: out.appendingPathComponent("b.bin"), encoding: .utf8), "b.bin")
        }
    }

    /// A subfolder (a fixture pack's test_data_set_0/) is written through `url(for:in:)`, flushed file by
    /// file and as a folder with `durable`, and may not name a path outside the output.
    func testSubfolderFilesAreWrittenAndFlushed() throws {
        let out = parent.appendingPathComponent("nested")
        let folder = try AtomicOutputDirectory(destination: out, durable: true)
        try Data("m".utf8).write(to: try folder.url(for: "manifest.json"))
        for name in ["input_0.pb", "output_0.pb"] { try Data(name.utf8).write(to: try folder.url(for: name, in: "test_data_set_0")) }
        XCTAssertThrowsError(try folder.url(for: "../x.pb", in: "test_data_set_0"))
        XCTAssertThrowsError(try folder.url(for: "x.pb", in: "../elsewhere"))
        try folder.commit()
        // manifest.json, the two .pb files, test_data_set_0/, the output folder and its parent.
        XCTAssertEqual(folder.flushedItems, 1 + 2 + 1 + 1 + 1)
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: out.appendingPathComponent("test_data_set_0").path).sorted(),
            ["input_0.pb", "output_0.pb"])
    }
}
