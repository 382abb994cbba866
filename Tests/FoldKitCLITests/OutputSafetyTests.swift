import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit

/// `foldkit convert` under hostile conditions (Docs/Security.md, "Output safety"): a SIGINT or SIGTERM
/// mid-write leaves the previous `--out` byte-identical and no temporary folder; two converts of
/// different models into one `--out` at once leave exactly one model's complete output; a convert that
/// fails or is refused leaves nothing outside `--out`.
final class OutputSafetyTests: XCTestCase {
    /// A model large enough (about 47 MB of weights) that a debug-build convert is mid-write for seconds.
    private static let largeCfg: String = {
        let convolution = "[convolutional]\nbatch_normalize=1\nfilters=512\nsize=3\nstride=1\npad=1\nactivation=leaky\n\n"
        return "[net]\nwidth=8\nheight=8\nchannels=3\n\n" + String(repeating: convolution, count: 5)
    }()

    private var root: URL!

    override func setUpWithError() throws {
        root = try TestData.temporaryDirectory("foldkit-output-safety")
        addTeardownBlock { [root] in try? FileManager.default.removeItem(at: root!) }
    }

    /// Writes `cfgText` and seeded weights for it into the test folder.
    private func seededModel(_ name: String, cfgText: String, seed: Int) throws -> (cfg: String, weights: String) {
        let cfg = root.appendingPathComponent("\(name).cfg").path
        let weights = root.appendingPathComponent("\(name).weights").path
        try Data(cfgText.utf8).write(to: URL(fileURLWithPath: cfg))
        let run = try CommandRunner.run(["seed-weights", cfg, "--seed", "\(seed)", "--out", weights])
        XCTAssertEqual(run.status, 0, run.stderr)
        return (cfg, weights)
    }

    /// Every regular file below `folder` with its bytes, keyed by relative path.
    private func snapshot(_ folder: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.subpathsOfDirectory(atPath: folder.path) {
            let url = folder.appendingPathComponent(name)
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), !isFolder.boolValue {
                files[name] = try Data(contentsOf: url)
            }
        }
        return files
    }

    private func sha256Hex(_ data: Data) -> String { Checksum.sha256Hex(data) }

    /// A parent folder holding only `out/` with the output of a small model (the previous output).
    private func previousOutput() throws -> (parent: URL, out: URL) {
        let parent = root.appendingPathComponent("parent")
        let out = parent.appendingPathComponent("out")
        let cfg = TestData.fixture("darknet/cfg/conv-basic.cfg").path
        let weights = root.appendingPathComponent("small.weights").path
        XCTAssertEqual(try CommandRunner.run(["seed-weights", cfg, "--out", weights]).status, 0)
        let run = try CommandRunner.run(["convert", cfg, weights, "--out", out.path])
        XCTAssertEqual(run.status, 0, run.stderr)
        return (parent, out)
    }

    /// Starts a convert of the large model into `out`, waits until its temporary folder holds a file,
    /// sends `signalNumber` and returns the exit status. The wait is on file events (`FolderEvents`): it
    /// wakes when an entry appears in `out`'s parent or in a temporary folder there, or when the convert
    /// exits; it blocks on those events, with no sleep and no polling loop.
    private func interruptedConvert(into out: URL, signalNumber: Int32) throws -> Int32 {
        let model = try seededModel("large", cfgText: Self.largeCfg, seed: 3)
        let parent = out.deletingLastPathComponent()
        let events = try FolderEvents()
        try events.watch(parent)  // before the convert starts, so that its temporary folder is seen
        let process = Process()
        process.executableURL = CommandRunner.executable
        process.arguments = ["convert", model.cfg, model.weights, "--out", out.path]
        let stdout = Pipe()  // reaches end of file when the convert exits
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        var watched: Set<String> = []
        var midWrite = false
        waiting: while true {
            // What is there now, watching each temporary folder from the moment it is seen (a file written
            // into it before the watch began is found by this listing).
            let partial = try FileManager.default.contentsOfDirectory(atPath: parent.path).filter { $0.hasPrefix(".out.partial-") }
            for name in partial where !watched.contains(name) {
                try? events.watch(parent.appendingPathComponent(name))  // it may be gone already (renamed into place)
                watched.insert(name)
            }
            midWrite = partial.contains {
                !((try? FileManager.default.contentsOfDirectory(atPath: parent.appendingPathComponent($0).path)) ?? []).isEmpty
            }
            if midWrite { break }
            switch try events.wait(orEndOf: stdout.fileHandleForReading, timeoutSeconds: 120) {
            case .folderChanged: continue
            case .endOfFile, .timedOut: break waiting
            }
        }
        XCTAssertTrue(midWrite, "the convert never had a half-written temporary folder")
        XCTAssertTrue(process.isRunning, "the convert finished before the signal")
        kill(process.processIdentifier, signalNumber)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit)
        return process.terminationStatus
    }

    private func checkInterrupt(signalNumber: Int32, expectedStatus: Int32) throws {
        let (parent, out) = try previousOutput()
        let before = try snapshot(out)
        XCTAssertFalse(before.isEmpty)
        XCTAssertEqual(try interruptedConvert(into: out, signalNumber: signalNumber), expectedStatus)
        XCTAssertEqual(try snapshot(out), before, "the previous output is byte-identical")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: parent.path), ["out"], "no temporary folder left")
    }

    func testSIGINTMidWriteLeavesThePreviousOutputAndNoTemporaryFolder() throws {
        try checkInterrupt(signalNumber: SIGINT, expectedStatus: 130)
    }

    func testSIGTERMMidWriteLeavesThePreviousOutputAndNoTemporaryFolder() throws {
        try checkInterrupt(signalNumber: SIGTERM, expectedStatus: 143)
    }

    /// SIGTERM at 25 seeded-random moments of a convert (from 50 ms after the start to past its end): every
    /// run exits 143 or 0, and nothing is left beside `--out`. A write that fails because the handler has
    /// just removed the unfinished folder used to end the run with exit 1 instead. (The first milliseconds,
    /// while the dynamic loader maps the libraries, are before any code of the program runs: a signal there
    /// still kills the process; Docs/Security.md, "Signals".)
    func testSIGTERMAtRandomMomentsExits143OrZeroAndLeavesNothing() throws {
        let model = try seededModel("mid", cfgText: Self.largeCfg, seed: 5)
        var generator = SplitMix64(seed: 21)
        var statuses: [Int32: Int] = [:]
        for run in 0..<25 {
            let parent = root.appendingPathComponent("random-\(run)")
            try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
            let process = Process()
            process.executableURL = CommandRunner.executable
            process.arguments = ["convert", model.cfg, model.weights, "--out", parent.appendingPathComponent("out").path, "--quiet"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(useconds_t(50_000 + generator.nextUnit() * 1_000_000))
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationReason, .exit, "run \(run) died from the signal")
            XCTAssertTrue([0, 143].contains(process.terminationStatus), "run \(run) exited \(process.terminationStatus)")
            statuses[process.terminationStatus, default: 0] += 1
            let left = try FileManager.default.contentsOfDirectory(atPath: parent.path)
            XCTAssertTrue(left.isEmpty || left == ["out"], "run \(run) left \(left)")
            try FileManager.default.removeItem(at: parent)
        }
        // Both outcomes occur: the moments cover the convert.
        XCTAssertGreaterThan(statuses[143, default: 0], 0, "\(statuses)")
    }

    func testConcurrentConvertsIntoOneFolderLeaveOneCompleteOutput() throws {
        let narrow = try seededModel("narrow", cfgText: Self.largeCfg.replacingOccurrences(of: "filters=512", with: "filters=384"), seed: 5)
        let wide = try seededModel("wide", cfgText: Self.largeCfg, seed: 7)
        let parent = root.appendingPathComponent("parent")
        let out = parent.appendingPathComponent("out")
        // Both runs start at once; each returns its own result (no state shared between the threads).
        let runs = [narrow, wide].map { model in
            BackgroundRun { try? CommandRunner.run(["convert", model.cfg, model.weights, "--out", out.path]) }
        }
        for result in runs.map({ $0.wait() }) {
            XCTAssertEqual(result?.status, 0, result?.stderr ?? "did not run")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: parent.path), ["out"], "no temporary folder left")
        let files = try snapshot(out)
        let manifest = try XCTUnwrap(JSONSerialization.jsonObject(with: XCTUnwrap(files["manifest.json"])) as? [String: Any])
        let tensors = try XCTUnwrap(manifest["tensors"] as? [[String: Any]])
        XCTAssertEqual(Set(files.keys), Set(tensors.compactMap { $0["file"] as? String } + ["manifest.json"]), "exactly the manifest's files")
        for tensor in tensors {
            let file = try XCTUnwrap(tensor["file"] as? String)
            XCTAssertEqual(sha256Hex(try XCTUnwrap(files[file])), tensor["sha256"] as? String, file)
        }
        // One model's output: the source digests name exactly one of the two weights files.
        let source = try XCTUnwrap(manifest["source"] as? [String: Any])
        let digests = try XCTUnwrap(source["sha256"] as? [String: String])
        let narrowDigest = sha256Hex(try Data(contentsOf: URL(fileURLWithPath: narrow.weights)))
        let wideDigest = sha256Hex(try Data(contentsOf: URL(fileURLWithPath: wide.weights)))
        XCTAssertTrue(digests["narrow.weights"] == narrowDigest || digests["wide.weights"] == wideDigest, "\(digests)")
        XCTAssertEqual(digests.count, 2, "one model: its cfg and its weights")
    }

    func testFailedConvertLeavesNothingOutsideTheOutputFolder() throws {
        let model = try seededModel("large", cfgText: Self.largeCfg, seed: 3)
        let truncated = root.appendingPathComponent("truncated.weights")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: model.weights))
        try bytes.prefix(bytes.count - 4).write(to: truncated)
        let parent = root.appendingPathComponent("parent")
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        let run = try CommandRunner.run(["convert", model.cfg, truncated.path, "--out", parent.appendingPathComponent("out").path])
        XCTAssertEqual(run.status, 1, run.stdout + run.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: parent.path), [], "no output and no temporary folder")
    }

    func testConvertRefusesToReplaceAFolderThatIsNotFoldKitOutput() throws {
        let cfg = TestData.fixture("darknet/cfg/conv-basic.cfg").path
        let weights = root.appendingPathComponent("small.weights").path
        XCTAssertEqual(try CommandRunner.run(["seed-weights", cfg, "--out", weights]).status, 0)
        let home = root.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home.appendingPathComponent("documents"), withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: home.appendingPathComponent("notes.txt"))
        let before = try snapshot(home)
        let run = try CommandRunner.run(["convert", cfg, weights, "--out", home.path])
        XCTAssertEqual(run.status, 1, run.stdout + run.stderr)
        XCTAssertTrue(run.stderr.contains("not a FoldKit output"), run.stderr)
        XCTAssertEqual(try snapshot(home), before)
        XCTAssertEqual(Set(try FileManager.default.contentsOfDirectory(atPath: root.path)), ["home", "small.weights"])
    }
}

/// A closure run on a thread of its own, its result collected with `wait()`.
private final class BackgroundRun<Value: Sendable>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var value: Value?

    init(_ body: @escaping @Sendable () -> Value) {
        Thread { [self] in
            value = body()
            done.signal()
        }.start()
    }

    /// Waits for the closure (call once) and returns what it returned.
    func wait() -> Value {
        done.wait()
        return value!
    }
}

/// File-system events on a few folders, and the end of a pipe, waited for together: inotify on Linux,
/// kqueue on Apple platforms. `wait` returns as soon as an entry is created in (or moved into) a watched
/// folder, the pipe reaches end of file (the writer exited), or the timeout passes.
final class FolderEvents {
    enum Event { case folderChanged, endOfFile, timedOut }

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let queue: Int32
    private var folders: [Int32] = []

    init() throws {
        #if os(Linux)
            queue = inotify_init1(Int32(IN_CLOEXEC))
        #else
            queue = kqueue()
        #endif
        guard queue >= 0 else { throw Failure(description: "cannot create a file event queue (errno \(errno))") }
    }

    deinit {
        for folder in folders { close(folder) }
        close(queue)
    }

    func watch(_ folder: URL) throws {
        #if os(Linux)
            guard inotify_add_watch(queue, folder.path, UInt32(IN_CREATE) | UInt32(IN_MOVED_TO)) >= 0 else {
                throw Failure(description: "cannot watch \(folder.path) (errno \(errno))")
            }
        #else
            let descriptor = open(folder.path, O_EVTONLY)
            guard descriptor >= 0 else { throw Failure(description: "cannot open \(folder.path) (errno \(errno))") }
            folders.append(descriptor)
            var change = kevent(
                ident: UInt(descriptor), filter: Int16(EVFILT_VNODE), flags: UInt16(EV_ADD | EV_CLEAR),
                fflags: UInt32(NOTE_WRITE), data: 0, udata: nil)
            guard kevent(queue, &change, 1, nil, 0, nil) >= 0 else { throw Failure(description: "cannot watch \(folder.path) (errno \(errno))") }
        #endif
    }

    /// Blocks until a watched folder changes, `pipe` reaches end of file, or `timeoutSeconds` pass. Data
    /// read from the pipe on the way is dropped.
    func wait(orEndOf pipe: FileHandle, timeoutSeconds: Int) throws -> Event {
        let deadline = Date().addingTimeInterval(TimeInterval(timeoutSeconds))
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            if remaining <= 0 { return .timedOut }
            #if os(Linux)
                var descriptors = [
                    pollfd(fd: queue, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: pipe.fileDescriptor, events: Int16(POLLIN), revents: 0),
                ]
                let ready = poll(&descriptors, 2, Int32(min(remaining * 1000, Double(Int32.max))) + 1)
                if ready < 0 && errno == EINTR { continue }
                guard ready >= 0 else { throw Failure(description: "poll failed (errno \(errno))") }
                if descriptors[0].revents != 0 {
                    _ = read(queue, &buffer, buffer.count)  // the events themselves: the caller looks at the folders
                    return .folderChanged
                }
                if descriptors[1].revents != 0 {
                    if read(pipe.fileDescriptor, &buffer, buffer.count) <= 0 { return .endOfFile }
                }
            #else
                var readable = kevent(
                    ident: UInt(pipe.fileDescriptor), filter: Int16(EVFILT_READ), flags: UInt16(EV_ADD | EV_CLEAR),
                    fflags: 0, data: 0, udata: nil)
                guard kevent(queue, &readable, 1, nil, 0, nil) >= 0 else { throw Failure(description: "kevent failed (errno \(errno))") }
                var event = kevent()
                var timeout = timespec(tv_sec: Int(remaining) + 1, tv_nsec: 0)
                let ready = kevent(queue, nil, 0, &event, 1, &timeout)
                if ready < 0 && errno == EINTR { continue }
                guard ready >= 0 else { throw Failure(description: "kevent failed (errno \(errno))") }
                if ready == 0 { continue }
                if event.filter == Int16(EVFILT_VNODE) { return .folderChanged }
                if read(pipe.fileDescriptor, &buffer, buffer.count) <= 0 { return .endOfFile }
            #endif
        }
    }
}
