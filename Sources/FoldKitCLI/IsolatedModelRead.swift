import Dispatch
import FoldKit
import FoldKitCore
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a Keras HDF5 model (`.h5`, `.hdf5`, or a `.keras` archive's `model.weights.h5`) once in a helper
/// process before the command reads it itself, so that libhdf5 failing on a damaged file cannot take
/// the command down (Docs/Security.md, "HDF5 read in a helper process").
///
/// libhdf5 1.10 (Debian 12's) trusts the addresses and sizes inside a file's B-trees and global heaps:
/// a damaged one can crash it (SIGSEGV, heap overflows) or make it allocate gigabytes. The helper is this
/// executable (`foldkit read-check`, `ReadCheckCommand`) reading the same files with the same options
/// under a data-size limit (`setrlimit(RLIMIT_DATA)`: 3 x the model's bytes + 512 MiB, at least 768 MiB;
/// the process needs about 200 MiB of it before it reads anything)
/// and a time limit (30 s + 20 s per GiB). Its outcome:
/// - exit 0: the command reads the model itself;
/// - a FoldKit error (exit 1, the error as JSON): the same error, as the command would have met it;
/// - a signal, another exit or the time limit: an error naming the file and how the helper ended.
///
/// Only the `foldkit` executable isolates (its `main` sets `executable`); the library and in-process
/// tests read directly, and so does the command with `FOLDKIT_HDF5_IN_PROCESS=1`.
enum IsolatedModelRead {
    /// The foldkit executable, set once by `FoldKitMain` before any command runs; nil: read in process.
    nonisolated(unsafe) static var executable: URL?

    /// `FOLDKIT_HDF5_IN_PROCESS=1`: no helper (trusted files read once; a damaged one can then crash the
    /// command, as libhdf5 does).
    static let inProcessVariable = "FOLDKIT_HDF5_IN_PROCESS"

    /// The files whose reading goes through libhdf5.
    static func hdf5Files(_ paths: [String]) -> [String] {
        paths.filter { ["h5", "hdf5", "keras"].contains(URL(fileURLWithPath: $0).pathExtension.lowercased()) }
    }

    /// The helper's data-size limit for models of `bytes` bytes in all.
    static func dataLimit(modelBytes bytes: Int) -> Int { max(768 << 20, 3 * bytes + (512 << 20)) }

    /// The helper's time limit in seconds for models of `bytes` bytes in all.
    static func timeLimit(modelBytes bytes: Int) -> Double { 30 + 20 * Double(bytes) / Double(1 << 30) }

    /// Reads `model` (and `input`, when the command reads one with it) in the helper; throws what the
    /// helper met. Returns at once for Darknet models, missing files (the command names them) and when
    /// no executable is set.
    static func check(_ model: ModelArguments, input: String?) throws {
        let files = hdf5Files(model.files)
        guard let executable, !files.isEmpty, model.files.allSatisfy({ FileManager.default.fileExists(atPath: $0) }),
            ProcessInfo.processInfo.environment[inProcessVariable] != "1"
        else { return }
        let bytes = model.files.reduce(0) { $0 + ((try? FileManager.default.attributesOfItem(atPath: $1)[.size] as? Int) ?? 0) }
        let limit = dataLimit(modelBytes: bytes), seconds = timeLimit(modelBytes: bytes)
        var arguments = ["read-check", "--data-limit", String(limit)]
        if let e = model.bnEpsilon { arguments += ["--bn-epsilon", String(e)] }
        if let p = model.bnEpsilonMode { arguments += ["--bn-epsilon-mode", p.rawValue] }
        if let h = model.height { arguments += ["--height", String(h)] }
        if let w = model.width { arguments += ["--width", String(w)] }
        if let input { arguments += ["--input", input] }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments + ["--"] + model.files
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        // The helper's temporary files (a .keras archive's extracted weights) go into a folder of the
        // parent's, removed whatever becomes of the helper (and by the signal handlers, while it runs).
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("foldkit-helper-\(UUID().uuidString)")
        try? FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let pending = PendingTemporaryItems.register(scratch)
        defer {
            try? FileManager.default.removeItem(at: scratch)
            PendingTemporaryItems.unregister(pending)
        }
        // No crash report from the Swift runtime: the parent reports how the helper ended.
        process.environment = ProcessInfo.processInfo.environment.merging(["SWIFT_BACKTRACE": "enable=no", "TMPDIR": scratch.path]) { _, new in new }
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        do { try process.run() } catch { return }  // No helper can start: read in process, as the library does.
        let start = Date()
        nonisolated(unsafe) var written = Data()
        let reading = DispatchGroup()
        DispatchQueue.global().async(group: reading) { written = output.fileHandleForReading.readDataToEndOfFile() }
        var timedOut = false
        if ended.wait(timeout: .now() + seconds) == .timedOut {
            timedOut = true
            kill(process.processIdentifier, SIGKILL)
            ended.wait()
        }
        reading.wait()
        let elapsed = String(format: "%.1f s", Date().timeIntervalSince(start))
        if !timedOut && process.terminationReason == .exit {
            if process.terminationStatus == 0 { return }
            if process.terminationStatus == 1, let error = try? JSONDecoder().decode(FoldKitError.self, from: written) { throw error }
        }
        let how: String
        if timedOut {
            how = "still reading after \(Int(seconds)) s, its time limit"
        } else if process.terminationReason == .uncaughtSignal {
            how = "ended by \(signalName(process.terminationStatus)) after \(elapsed)"
        } else {
            how = "exit code \(process.terminationStatus) after \(elapsed)"
        }
        throw FoldKitError(
            .badInput,
            "libhdf5 could not read this file: the helper process reading it was \(how); libhdf5 crashes, loops or allocates without end on damaged HDF5 structures, so foldkit reads HDF5 in a helper first",
            file: files.joined(separator: ", "), expected: "an HDF5 file libhdf5 reads within \(limit >> 20) MiB of data and \(Int(seconds)) s")
    }

    /// "SIGSEGV (signal 11)" for the signals a crashing reader ends with.
    static func signalName(_ number: Int32) -> String {
        let names: [Int32: String] = [
            SIGILL: "SIGILL", SIGTRAP: "SIGTRAP", SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGSEGV: "SIGSEGV",
        ]
        return "\(names[number] ?? "signal") (signal \(number))"
    }
}
