import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKitIO

/// libhdf5 opens a file a command was handed in the HDF5 helper process only (`HDF5Helper`,
/// Docs/Security.md "HDF5 read in a helper process"), and what the command writes from the model the
/// helper hands back is byte for byte what it writes reading the model in process
/// (`FOLDKIT_HDF5_IN_PROCESS=1`).
///
/// Which process opens a file with libhdf5 is logged by an `LD_PRELOAD` shim
/// (Fixtures/hdf5-shim/h5fopen-log.c, built here with `gcc -shared -fPIC`) around `H5Fopen`,
/// `H5Fis_hdf5` and `H5Fis_accessible`: one line per call with the caller's process id and its parent's.
final class HDF5HelperOnlyTests: XCTestCase {
    private struct Outcome {
        var status: Int32
        var pid: Int32
        var stdout: String
        var stderr: String
    }

    /// A call logged by the shim.
    private struct Opening {
        var pid: Int32
        var parent: Int32
        var function: String
        var path: String
    }

    /// What Fixtures/keras-real/<model>/meta.json says of the files.
    private struct Meta: Decodable {
        var files: [String]
    }

    /// Builds the shim into a folder of the test's; skips where there is no gcc or no LD_PRELOAD (not Linux).
    private func buildShim() throws -> URL {
        #if !os(Linux)
            throw XCTSkip("the H5Fopen shim is an LD_PRELOAD library: Linux only")
        #else
            let folder = try TestData.temporaryDirectory("foldkit-h5-shim")
            addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
            let library = folder.appendingPathComponent("h5fopen-log.so")
            let gcc = Process()
            gcc.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            gcc.arguments = ["gcc", "-shared", "-fPIC", "-O1", "-o", library.path, TestData.fixture("hdf5-shim/h5fopen-log.c").path, "-ldl"]
            let err = Pipe()
            gcc.standardError = err
            try gcc.run()
            let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            gcc.waitUntilExit()
            guard gcc.terminationStatus == 0 else {
                if gcc.terminationStatus == 127 { throw XCTSkip("no gcc to build the H5Fopen shim") }
                XCTFail("gcc failed to build the shim: \(message)")
                throw XCTSkip("no shim")
            }
            return library
        #endif
    }

    /// Runs `foldkit` in the repository root with the shim (when given) logging into `log`.
    private func run(
        _ arguments: [String], inProcess: Bool, shim: URL? = nil, log: URL? = nil, in folder: URL? = nil, environment extra: [String: String] = [:]
    ) throws -> Outcome {
        let process = Process()
        process.executableURL = CommandRunner.executable
        process.arguments = arguments
        process.currentDirectoryURL = folder ?? TestData.repositoryRoot
        var environment = ProcessInfo.processInfo.environment
        environment["FOLDKIT_HDF5_IN_PROCESS"] = inProcess ? "1" : nil
        environment["SWIFT_BACKTRACE"] = "enable=no"
        environment.merge(extra) { _, new in new }
        if let shim, let log {
            environment["LD_PRELOAD"] = shim.path
            environment["FOLDKIT_H5_LOG"] = log.path
        }
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let pid = process.processIdentifier
        nonisolated(unsafe) var outData = Data()
        let reading = DispatchGroup()
        DispatchQueue.global().async(group: reading) { outData = out.fileHandleForReading.readDataToEndOfFile() }
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        reading.wait()
        process.waitUntilExit()
        return Outcome(
            status: process.terminationStatus, pid: pid, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }

    private func openings(_ log: URL) throws -> [Opening] {
        guard FileManager.default.fileExists(atPath: log.path) else { return [] }
        return try String(contentsOf: log, encoding: .utf8).split(separator: "\n").compactMap { line in
            let parts = line.split(separator: " ", maxSplits: 3)
            guard parts.count == 4, let pid = Int32(parts[0]), let parent = Int32(parts[1]) else { return nil }
            return Opening(pid: pid, parent: parent, function: String(parts[2]), path: String(parts[3]))
        }
    }

    /// Every file beneath `folder`, by path relative to it, with its bytes.
    private func contents(_ folder: URL) throws -> [String: Data] {
        var files: [String: Data] = [:]
        guard let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey]) else { return files }
        for case let url as URL in enumerator where (try url.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true {
            files[String(url.path.dropFirst(folder.path.count))] = try Data(contentsOf: url)
        }
        return files
    }

    /// A command's report without its timings (verify's `time:` line, convert's `took`).
    private func withoutTimes(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("time:") && !$0.hasPrefix("took ") }
            .joined(separator: "\n")
    }

    /// Runs `arguments` (whose `{out}` is replaced by an output folder) through the helper and in process, and
    /// checks that both end alike and write the same bytes; returns the two outcomes.
    @discardableResult
    private func assertAlike(
        _ arguments: [String], label: String, shim: URL? = nil, log: URL? = nil, line: UInt = #line
    ) throws -> (helped: Outcome, direct: Outcome) {
        let scratch = try TestData.temporaryDirectory("foldkit-helper-only")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let out = scratch.appendingPathComponent("out")
        let argv = arguments.map { $0 == "{out}" ? out.path : $0 }
        // The same output path both ways (commands print it): the helper's result is moved aside first.
        let helped = try run(argv, inProcess: false, shim: shim, log: log)
        let helpedFolder = scratch.appendingPathComponent("helped")
        if FileManager.default.fileExists(atPath: out.path) { try FileManager.default.moveItem(at: out, to: helpedFolder) }
        let direct = try run(argv, inProcess: true, shim: shim, log: log)
        let what = "\(label): foldkit \(argv.joined(separator: " "))"
        XCTAssertEqual(helped.status, direct.status, "\(what)\nhelper: \(helped.stderr)\nin process: \(direct.stderr)", line: line)
        XCTAssertEqual(withoutTimes(helped.stdout), withoutTimes(direct.stdout), what, line: line)
        XCTAssertEqual(helped.stderr, direct.stderr, what, line: line)
        if argv.contains(out.path) {
            let a = try contents(helpedFolder), b = try contents(out)
            XCTAssertEqual(a.keys.sorted(), b.keys.sorted(), what, line: line)
            for (name, bytes) in a where b[name] != bytes { XCTFail("\(what): \(name) differs", line: line) }
        }
        return (helped, direct)
    }

    /// The real Keras models of ../shared (every file combination Fixtures/keras-real runs, with its input).
    private func realModels() throws -> [(name: String, files: [String], input: String)] {
        let folder = TestData.fixture("keras-real")
        var models: [(String, [String], String)] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() {
            let meta = folder.appendingPathComponent(name).appendingPathComponent("meta.json")
            guard FileManager.default.fileExists(atPath: meta.path) else { continue }
            let files = try JSONDecoder().decode(Meta.self, from: Data(contentsOf: meta)).files.map { try TestData.sharedFile($0).path }
            models.append((name, files, folder.appendingPathComponent(name).appendingPathComponent("input.npy").path))
        }
        return models
    }

    /// (1) Converting, verifying, writing fixtures for and inspecting every real Keras model, libhdf5 opens
    /// the model files in the helper (a child of the command) and never in the command; the in-process
    /// read, the shim's control, opens them in the command. (2) Both write the same bytes.
    func testRealKerasModelsAreOpenedByTheHelperOnlyAndConvertAlike() throws {
        let shim = try buildShim()
        let models = try realModels()
        XCTAssertGreaterThanOrEqual(models.count, 17, "Fixtures/keras-real model folders")
        let logs = try TestData.temporaryDirectory("foldkit-h5-logs")
        defer { try? FileManager.default.removeItem(at: logs) }
        var helperRuns = 0
        for model in models {
            let commands: [[String]] = [
                ["convert"] + model.files + ["--out", "{out}"],
                ["verify"] + model.files + ["--input", model.input],
                ["fixtures"] + model.files + ["--input", model.input, "--out", "{out}", "--layout", "nhwc"],
                ["inspect"] + model.files,
            ]
            for (k, command) in commands.enumerated() {
                let log = logs.appendingPathComponent("\(model.name)-\(k).log")
                let (helped, direct) = try assertAlike(command, label: model.name, shim: shim, log: log)
                // convert and inspect of a model whose input size is undefined (MTCNN's P-Net) ask for --height and --width.
                if command.contains("--input") { XCTAssertEqual(helped.status, 0, "\(model.name) \(command[0]): \(helped.stderr)") }
                let calls = try openings(log)
                let byCommand = calls.filter { $0.pid == helped.pid }
                XCTAssertEqual(byCommand.map(\.path), [], "\(model.name) \(command[0]): libhdf5 opened files in the command")
                let byHelper = calls.filter { $0.parent == helped.pid && $0.function == "H5Fopen" }
                XCTAssertFalse(byHelper.isEmpty, "\(model.name) \(command[0]): no H5Fopen in a child of the command (is the shim loaded?)")
                XCTAssertTrue(
                    calls.filter { $0.pid == direct.pid && $0.function == "H5Fopen" }.count > 0,
                    "\(model.name) \(command[0]): the in-process read logged no H5Fopen: the shim does not see the calls")
                for call in calls where call.pid != helped.pid && call.pid != direct.pid {
                    XCTAssertEqual(call.parent, helped.pid, "\(model.name): libhdf5 called by \(call.pid), neither the command nor its helper")
                }
                helperRuns += 1
            }
        }
        XCTAssertGreaterThanOrEqual(helperRuns, 68)
    }

    /// (2) Every Keras file of Fixtures/keras (Keras 3 and tf.keras `.h5`, `.keras`, config JSON + weights):
    /// fixtures (with the file's input) or convert (without one) write the same bytes through the helper as in
    /// process, and the files refused are refused with the same message.
    func testEveryKerasFixtureConvertsAlike() throws {
        let folder = TestData.fixture("keras")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        var sets: [(name: String, files: [String])] = names.filter { $0.hasSuffix(".h5") || $0.hasSuffix(".keras") }.map {
            ($0, [folder.appendingPathComponent($0).path])
        }
        for json in names where json.hasSuffix(".json") {
            let stem = String(json.dropLast(".json".count))
            for weights in ["\(stem).weights.h5", "\(stem)_weights.h5"] where names.contains(weights) {
                sets.append((json + " + " + weights, [folder.appendingPathComponent(json).path, folder.appendingPathComponent(weights).path]))
            }
        }
        XCTAssertGreaterThan(sets.count, 100, "Fixtures/keras files")
        var converted = 0, refused = 0, withInput = 0
        // A file with an input writes fixtures (every layer's output from every weight: a value handed over
        // wrongly changes the bytes), the others convert (every weight as a blob): one command per file keeps
        // the test near a minute.
        for set in sets {
            let stem = set.name.split(separator: ".").first.map(String.init) ?? set.name
            let input = folder.appendingPathComponent("\(stem).input.npy")
            let hasInput = FileManager.default.fileExists(atPath: input.path)
            let command = hasInput ? ["fixtures"] + set.files + ["--input", input.path] : ["convert"] + set.files
            let (helped, _) = try assertAlike(command + ["--out", "{out}"], label: set.name)
            if helped.status == 0 { converted += 1 } else { refused += 1 }
            if hasInput { withInput += 1 }
        }
        XCTAssertGreaterThan(converted, 90, "converted \(converted), refused \(refused)")
        XCTAssertGreaterThan(withInput, 90)
    }

    /// The helper is started with its CPU-time limit (30 s + 20 s per GiB), which `read-check` sets on
    /// itself (`testTheHelperRunsSandboxed` reads it back inside the sandbox); the command's own wall-clock
    /// limit is ten times that, so a busy machine slows a read without ending it.
    func testTheHelperIsStartedWithItsCPUTimeLimit() throws {
        XCTAssertEqual(HDF5Helper.cpuLimit(modelBytes: 1000), 31)
        XCTAssertEqual(HDF5Helper.cpuLimit(modelBytes: 3 << 29), 60)
        XCTAssertEqual(HDF5Helper.wallClockLimit(modelBytes: 3 << 29), 600)
        let arguments = HDF5Helper.arguments(
            paths: ["model.h5"], options: ModelOptions(), inputPath: nil, dataLimit: 1 << 30, cpuLimit: 60,
            scratch: URL(fileURLWithPath: "/tmp/helper"))
        let at = try XCTUnwrap(arguments.firstIndex(of: "--cpu-limit"), "\(arguments)")
        XCTAssertEqual(arguments[at + 1], "60")
        XCTAssertEqual(arguments.suffix(2), ["--", "model.h5"])
    }

    /// The helper's sandbox (Linux): no new privileges, seccomp, Landlock where the kernel has it, entered
    /// with one thread; inside it, a file can be made in the helper's folder only, the home folder cannot be
    /// read, no program started, no TCP socket opened, no signal sent to the parent.
    func testTheHelperRunsSandboxed() throws {
        #if !os(Linux)
            throw XCTSkip("the helper's sandbox is Linux's")
        #else
            let scratch = try TestData.temporaryDirectory("foldkit-sandbox-probe")
            defer { try? FileManager.default.removeItem(at: scratch) }
            let helperFolder = scratch.appendingPathComponent("helper"), work = scratch.appendingPathComponent("work")
            try FileManager.default.createDirectory(at: helperFolder, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            let model = TestData.fixture("malformed/keras/good.h5").path
            // In the environment HDF5Helper starts it in (one BLAS thread: OpenBLAS starts its workers as it loads).
            let outcome = try run(
                ["read-check", "--sandbox-probe", "--data-limit", String(1 << 30), "--cpu-limit", "31", "--scratch", helperFolder.path, "--", model],
                inProcess: false,
                in: work, environment: HDF5Helper.environment)
            XCTAssertEqual(outcome.status, 0, outcome.stderr)
            struct Report: Decodable {
                var noNewPrivileges: Bool
                var landlockABI: Int
                var landlock: Bool
                var seccomp: Bool
                var threads: Int
                var probes: [String: String]
            }
            let report = try JSONDecoder().decode(Report.self, from: Data(outcome.stdout.utf8))
            XCTAssertTrue(report.noNewPrivileges)
            XCTAssertTrue(report.seccomp)
            XCTAssertEqual(report.threads, 1, "the sandbox is entered with one thread")
            XCTAssertEqual(report.probes["create in the helper's folder"], "allowed")
            XCTAssertEqual(report.probes["signal itself"], "allowed")
            // A loop inside libhdf5 ends on the CPU time it used, not on a busy machine's clock.
            XCTAssertEqual(report.probes["CPU-time limit"], "SIGXCPU at 31 s, SIGKILL at 32 s")
            for refused in ["start /bin/true", "open a TCP socket", "signal the parent"] {
                XCTAssertTrue(report.probes[refused]?.hasPrefix("refused") == true, "\(refused): \(report.probes[refused] ?? "not tried")")
            }
            if report.landlockABI > 0 {
                XCTAssertTrue(report.landlock)
                for refused in ["create beside the helper's folder", "create in the working folder", "read the home folder"] {
                    XCTAssertTrue(report.probes[refused]?.hasPrefix("refused") == true, "\(refused): \(report.probes[refused] ?? "not tried")")
                }
            }
            XCTAssertEqual(
                try FileManager.default.contentsOfDirectory(atPath: scratch.path).sorted(), ["helper", "work"],
                "nothing made beside the helper's folder")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: work.path), [], "nothing made in the working folder")
        #endif
    }
}
