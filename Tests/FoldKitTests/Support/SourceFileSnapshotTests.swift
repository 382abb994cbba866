import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit

/// A source file rewritten between the snapshot and the check is reported, naming the file.
final class SourceFileSnapshotTests: XCTestCase {
    private func makeFile(_ bytes: [UInt8] = [1, 2, 3, 4]) throws -> (folder: URL, file: URL) {
        let folder = try TestData.temporaryDirectory("snapshot")
        let file = folder.appendingPathComponent("model.weights")
        try Data(bytes).write(to: file)
        return (folder, file)
    }

    private func assertChanged(_ snapshot: SourceFileSnapshot, _ file: URL, line: UInt = #line) {
        XCTAssertThrowsError(try snapshot.checkUnchanged(), line: line) { error in
            guard let error = error as? FoldKitError else { return XCTFail("not a FoldKitError: \(error)", line: line) }
            XCTAssertEqual(error.kind, .io, line: line)
            XCTAssertEqual(error.file, file.path, line: line)
        }
    }

    func testUnchangedFilePasses() throws {
        let (folder, file) = try makeFile()
        defer { try? FileManager.default.removeItem(at: folder) }
        let snapshot = SourceFileSnapshot([file.path])
        _ = try Data(contentsOf: file)
        XCTAssertNoThrow(try snapshot.checkUnchanged())
    }

    func testAppendedBytesAreReported() throws {
        let (folder, file) = try makeFile()
        defer { try? FileManager.default.removeItem(at: folder) }
        let snapshot = SourceFileSnapshot([file.path])
        let handle = try FileHandle(forWritingTo: file)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data([5]))
        try handle.close()
        assertChanged(snapshot, file)
    }

    func testSameSizeRewriteWithNewModificationTimeIsReported() throws {
        let (folder, file) = try makeFile()
        defer { try? FileManager.default.removeItem(at: folder) }
        let snapshot = SourceFileSnapshot([file.path])
        try Data([9, 9, 9, 9]).write(to: file)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 60)], ofItemAtPath: file.path)
        assertChanged(snapshot, file)
    }

    func testFileReplacedByRenameIsReported() throws {
        let (folder, file) = try makeFile()
        defer { try? FileManager.default.removeItem(at: folder) }
        let snapshot = SourceFileSnapshot([file.path])
        // A checkpoint saved the usual way: a new file renamed over the old one (same size, same mtime set).
        let replacement = folder.appendingPathComponent("new.weights")
        try Data([1, 2, 3, 4]).write(to: replacement)
        let modified = try FileManager.default.attributesOfItem(atPath: file.path)[.modificationDate]
        try FileManager.default.setAttributes([.modificationDate: modified as Any], ofItemAtPath: replacement.path)
        XCTAssertEqual(rename(replacement.path, file.path), 0)
        assertChanged(snapshot, file)
    }

    func testRemovedFileIsReportedAndAbsentSourcesAreIgnored() throws {
        let (folder, file) = try makeFile()
        defer { try? FileManager.default.removeItem(at: folder) }
        let snapshot = SourceFileSnapshot([file.path, folder.appendingPathComponent("not-a-file").path])
        try FileManager.default.removeItem(at: file)
        assertChanged(snapshot, file)
        XCTAssertNoThrow(try SourceFileSnapshot([folder.appendingPathComponent("not-a-file").path]).checkUnchanged())
    }
}
