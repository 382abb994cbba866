import FoldKitTestSupport
import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs the real `foldkit` on every case of the malformed-input corpus (Fixtures/malformed/cases.json,
/// written by make_corpus.py; Docs/Security.md "What is checked"): each must exit 1 (not crash on a
/// signal, not hang), within 10 s and 1 GiB, with a message holding the case's substrings (file,
/// layer, byte offset or line, what was expected), and write nothing where --out points.
final class MalformedCorpusTests: XCTestCase {
    private struct Table: Decodable {
        var cases: [Case]
    }

    private struct Case: Decodable {
        var name: String
        var command: String
        var files: [String]
        var args: [String]
        var exit: Int32
        var stderr: [String]
    }

    private struct Outcome {
        var status: Int32
        var signalled: Bool
        var timedOut: Bool
        var seconds: Double
        var stdout: String
        var stderr: String
    }

    private static let corpus = TestData.fixture("malformed")
    private static let timeLimit: Double = 10
    private static let memoryLimitBytes = 1 << 30

    func testEveryCaseExitsOneWithALocatedMessageAndWritesNothing() throws {
        let table = try JSONDecoder().decode(Table.self, from: Data(contentsOf: Self.corpus.appendingPathComponent("cases.json")))
        XCTAssertGreaterThan(table.cases.count, 50, "the corpus table lost its cases")
        for entry in table.cases {
            let scratch = try TestData.temporaryDirectory("foldkit-malformed")
            let out = scratch.appendingPathComponent("out")
            var arguments = [entry.command] + entry.files + entry.args
            if entry.command == "convert" || entry.command == "fixtures" { arguments += ["--out", out.path] }
            let peakBefore = Self.childrenPeakBytes()
            let outcome = try run(arguments)
            let peakAfter = Self.childrenPeakBytes()
            let label = "\(entry.name): foldkit \(arguments.joined(separator: " "))\n\(outcome.stderr)"
            XCTAssertFalse(outcome.timedOut, "did not finish in \(Self.timeLimit) s: \(label)")
            XCTAssertFalse(outcome.signalled, "killed by signal \(outcome.status): \(label)")
            XCTAssertEqual(outcome.status, entry.exit, label)
            XCTAssertLessThan(outcome.seconds, Self.timeLimit, label)
            XCTAssertFalse(peakAfter > peakBefore && peakAfter > Self.memoryLimitBytes, "peak memory \(peakAfter) bytes: \(label)")
            for expected in entry.stderr {
                XCTAssertTrue(outcome.stderr.contains(expected), "message lacks '\(expected)': \(label)")
            }
            XCTAssertTrue(outcome.stderr.hasPrefix("error: "), label)
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: scratch.path), [], "left files beside --out: \(label)")
            try? FileManager.default.removeItem(at: scratch)
        }
    }

    /// The corpus is only evidence if its unbroken originals are accepted: each case differs from
    /// one of these by the one defect it names.
    func testTheUnbrokenOriginalsAreAccepted() throws {
        let scratch = try TestData.temporaryDirectory("foldkit-malformed")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let darknet = try run(["convert", "darknet/net.cfg", "darknet/good.weights", "--out", scratch.appendingPathComponent("d").path])
        XCTAssertEqual(darknet.status, 0, darknet.stderr)
        let keras = try run(["convert", "keras/good.h5", "--out", scratch.appendingPathComponent("k").path])
        XCTAssertEqual(keras.status, 0, keras.stderr)
        let inspect = try run(["inspect", "darknet/net.cfg", "darknet/good.weights"])
        XCTAssertEqual(inspect.status, 0, inspect.stderr)
        XCTAssertTrue(inspect.stdout.contains("weight values: all finite"), inspect.stdout)
    }

    /// `--allow-nonfinite` writes the blobs anyway and lists every bad value on stderr; `inspect` and
    /// `verify` report them without the flag.
    func testAllowNonfiniteConvertsAndInspectReports() throws {
        let scratch = try TestData.temporaryDirectory("foldkit-malformed")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let out = scratch.appendingPathComponent("out")
        let allowed = try run(["convert", "darknet/net.cfg", "darknet/nan-weight.weights", "--allow-nonfinite", "--out", out.path])
        XCTAssertEqual(allowed.status, 0, allowed.stderr)
        XCTAssertTrue(allowed.stderr.contains("nan-weight.weights: layer 0 [convolutional]: at byte 88: NaN in weights"), allowed.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out.appendingPathComponent("manifest.json").path))

        let inspect = try run(["inspect", "darknet/net.cfg", "darknet/negative-variance.weights"])
        XCTAssertEqual(inspect.status, 0, inspect.stderr)
        XCTAssertTrue(inspect.stdout.contains("weight values: 1 bad value"), inspect.stdout)
        XCTAssertTrue(inspect.stdout.contains("at byte 64: variance with no positive denominator"), inspect.stdout)

        // verify compares equal infinities as agreeing, so its verdict may pass; the bad value is reported first.
        let verify = try run(["verify", "darknet/net.cfg", "darknet/inf-bias.weights"])
        XCTAssertNotEqual(verify.status, 1, verify.stderr)
        XCTAssertTrue(verify.stdout.hasPrefix("weight values: 1 bad value"), verify.stdout)
        XCTAssertTrue(verify.stdout.contains("layer 2 [convolutional]: at byte 288: infinity in bias [2] element 1"), verify.stdout)
    }

    /// Runs `foldkit` in the corpus folder (so messages name files as the table does), killing it
    /// after the time limit.
    private func run(_ arguments: [String]) throws -> Outcome {
        let process = Process()
        process.executableURL = CommandRunner.executable
        process.arguments = arguments
        process.currentDirectoryURL = Self.corpus
        // Output goes to files, not pipes: nothing has to drain them while the process is timed.
        let folder = try TestData.temporaryDirectory("foldkit-malformed-output")
        defer { try? FileManager.default.removeItem(at: folder) }
        let outURL = folder.appendingPathComponent("stdout"), errURL = folder.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        defer { try? out.close(); try? err.close() }
        process.standardOutput = out
        process.standardError = err
        let finished = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in finished.signal() }
        let start = Date()
        try process.run()
        let timedOut = finished.wait(timeout: .now() + Self.timeLimit) == .timedOut
        if timedOut {
            process.terminate()
            finished.wait()
        }
        return Outcome(
            status: process.terminationStatus, signalled: process.terminationReason == .uncaughtSignal && !timedOut,
            timedOut: timedOut, seconds: Date().timeIntervalSince(start),
            stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
    }

    /// The largest resident set of any finished child process so far, in bytes.
    private static func childrenPeakBytes() -> Int {
        var usage = rusage()
        #if os(Linux)
            getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
            return usage.ru_maxrss * 1024
        #else
            getrusage(RUSAGE_CHILDREN, &usage)
            return usage.ru_maxrss
        #endif
    }
}
