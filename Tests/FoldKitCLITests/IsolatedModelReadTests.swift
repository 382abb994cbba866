import FoldKitTestSupport
import Foundation
import XCTest

/// `foldkit` reads an HDF5 model in a helper process only, which hands the command the model it read
/// (`IsolatedModelRead`, `HDF5Helper`): a file on which libhdf5 1.10 (Debian 12's, what CI runs) crashes
/// ends the helper, not the command, which exits 1 naming the file and the signal, and leaves nothing
/// behind; the same file read in process (`FOLDKIT_HDF5_IN_PROCESS=1`) crashes the command, which shows
/// the helper is what holds. `HDF5HelperOnlyTests` shows that the command itself never opens the file with
/// libhdf5 and writes what the in-process read writes.
final class IsolatedModelReadTests: XCTestCase {
    private struct Outcome {
        var status: Int32
        var signalled: Bool
        var seconds: Double
        var stderr: String
    }

    private func run(_ arguments: [String], inProcess: Bool = false) throws -> Outcome {
        let process = Process()
        process.executableURL = CommandRunner.executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["FOLDKIT_HDF5_IN_PROCESS"] = inProcess ? "1" : nil
        environment["SWIFT_BACKTRACE"] = "enable=no"
        process.environment = environment
        let err = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = err
        let start = Date()
        try process.run()
        let data = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Outcome(
            status: process.terminationStatus, signalled: process.terminationReason == .uncaughtSignal,
            seconds: Date().timeIntervalSince(start), stderr: String(decoding: data, as: UTF8.self))
    }

    /// A copy of `source` with `bytes` written at `offset`.
    private func damaged(_ source: URL, at offset: Int, _ bytes: [UInt8]) throws -> URL {
        let directory = try TestData.temporaryDirectory("foldkit-isolated")
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        var data = try Data(contentsOf: source)
        data.replaceSubrange(offset..<(offset + bytes.count), with: bytes)
        let copy = directory.appendingPathComponent(source.lastPathComponent)
        try data.write(to: copy)
        return copy
    }

    private func assertCrashIsContained(_ file: URL, line: UInt = #line) throws {
        let out = file.deletingLastPathComponent().appendingPathComponent("blobs")
        let outcome = try run(["convert", file.path, "--out", out.path])
        XCTAssertFalse(outcome.signalled, outcome.stderr, line: line)
        XCTAssertEqual(outcome.status, 1, outcome.stderr, line: line)
        XCTAssertLessThan(outcome.seconds, 5, line: line)
        XCTAssertTrue(outcome.stderr.contains(file.path), outcome.stderr, line: line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out.path), line: line)
        #if os(Linux)
            XCTAssertTrue(outcome.stderr.contains("helper process reading it was ended by SIGSEGV (signal 11)"), outcome.stderr, line: line)
            let direct = try run(["convert", file.path, "--out", out.path], inProcess: true)
            XCTAssertTrue(direct.signalled, "read in process, libhdf5 1.10 crashes the command: \(direct.stderr)", line: line)
        #endif
    }

    /// model_config's global heap ID names an object past its collection's table (the malformed corpus's
    /// keras/heap-id-index.h5): SIGSEGV in libhdf5 1.10's H5HG_read.
    func testHeapIndexCrashIsContained() throws {
        try assertCrashIsContained(TestData.fixture("malformed/keras/heap-id-index.h5"))
    }

    /// A group B-tree child address of the shared conv2d_1layer.h5 set past the end (8 bytes of 0xFF at
    /// byte 6544, found by Fuzz/mutate.py): SIGSEGV in libhdf5 1.10 under H5Lexists.
    func testBTreeChildCrashIsContained() throws {
        let source = try TestData.sharedFile("real-models/keras_hls4ml_conv2d_1layer_tf213/conv2d_1layer.h5")
        try assertCrashIsContained(damaged(source, at: 6544, [UInt8](repeating: 0xFF, count: 8)))
    }

    /// What FoldKit itself refuses reads the same through the helper as in process: the helper sends the
    /// error back whole (message, file, layer, expected and found).
    func testRefusalsReadTheSameThroughTheHelper() throws {
        for name in ["repeated-weight-name.h5", "address-in-superblock.h5", "heap-object-size.h5", "external-link.h5"] {
            let file = TestData.fixture("malformed/keras/\(name)")
            let helper = try run(["inspect", file.path]), direct = try run(["inspect", file.path], inProcess: true)
            XCTAssertEqual(helper.status, 1, name)
            XCTAssertEqual(helper.stderr, direct.stderr, name)
            XCTAssertTrue(helper.stderr.contains(name), helper.stderr)
        }
    }

    /// A good model converts through the helper to the same blobs as in process.
    func testGoodModelConvertsAlike() throws {
        let file = TestData.fixture("malformed/keras/good.h5")
        let directory = try TestData.temporaryDirectory("foldkit-isolated")
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        let helped = directory.appendingPathComponent("helped"), direct = directory.appendingPathComponent("direct")
        XCTAssertEqual(try run(["convert", file.path, "--out", helped.path]).status, 0)
        XCTAssertEqual(try run(["convert", file.path, "--out", direct.path], inProcess: true).status, 0)
        let names = try FileManager.default.contentsOfDirectory(atPath: helped.path).filter { $0.hasSuffix(".bin") }.sorted()
        XCTAssertFalse(names.isEmpty)
        for name in names {
            XCTAssertEqual(
                try Data(contentsOf: helped.appendingPathComponent(name)), try Data(contentsOf: direct.appendingPathComponent(name)), name)
        }
    }
}
