import Dispatch
import FoldKitCore
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads Keras models (`.h5`, `.hdf5`, `.keras`, `config.json` + weights) in a helper process, so that
/// libhdf5 never runs on an untrusted file in the process that asked (Docs/Security.md, "HDF5 read in a
/// helper process"). Pass one to `ModelLoader.load(paths:options:requireWeights:hdf5Helper:)` for files
/// from outside; the `foldkit` command always does, unless `FOLDKIT_HDF5_IN_PROCESS=1`.
///
/// libhdf5 1.10 (Debian 12's) trusts the addresses and sizes inside a file's B-trees and global heaps: a
/// damaged one can crash it (SIGSEGV), overflow its heap or make it allocate gigabytes. The helper is the
/// `foldkit` executable's hidden `read-check` command: it reads the model once with `ModelLoader` under a
/// data-size limit (`setrlimit(RLIMIT_DATA)`: 3 x the model's bytes + 512 MiB, at least 768 MiB), a CPU-time
/// limit (`RLIMIT_CPU`: 30 s + 20 s per GiB; a loop inside libhdf5 ends by SIGXCPU however busy the machine
/// is) and a wall-clock limit ten times that (a helper that waits without computing), dies with its
/// parent, and on Linux runs with no new privileges, under a
/// Landlock ruleset (files read only beneath the model files and the system folders, written only in its
/// temporary folder) and a seccomp filter (no new program, process, socket or signal to another process).
/// It hands back the network it read on its standard output (`LoadedModelTransfer`: a JSON description,
/// then the weights as raw float32 values, read by the caller straight into the tensors and checked). Outcomes:
/// - the model: the same `Network` `ModelLoader.load` returns in process, value for value;
/// - a FoldKit error (exit 1, the error as JSON): the same error, as the in-process read meets it;
/// - a signal, another exit or a time limit: an error naming the file and how the helper ended.
///
/// The caller's own process never opens the model files with libhdf5; it reads only their bytes to hash
/// them (the manifests' checksums). Darknet models have no HDF5 and are read in process.
public struct HDF5Helper: Sendable {
    /// The `foldkit` executable (a release of this package's `foldkit` product) whose `read-check` command
    /// is the helper.
    public var executable: URL

    /// A helper run from `executable`, the path of a `foldkit` executable built from this package.
    public init(executable: URL) {
        self.executable = executable
    }

    /// `FOLDKIT_HDF5_IN_PROCESS=1`: the `foldkit` command reads HDF5 in its own process (trusted files,
    /// benchmarks; a damaged file can then crash the command, as libhdf5 does).
    public static let inProcessVariable = "FOLDKIT_HDF5_IN_PROCESS"

    /// Whether `paths` are read by the Keras reader, and so by the helper: every non-empty list without a
    /// Darknet `.cfg` (whatever the other names end in: the reader opens any such file with libhdf5 once
    /// the combination is known).
    package static func readsKeras(_ paths: [String]) -> Bool {
        !paths.isEmpty && ModelLoader.isKeras(paths)
    }

    /// What the helper's environment sets besides its TMPDIR: no crash report from the Swift runtime (this
    /// side reports how the helper ended); one BLAS thread (the helper runs no product, and OpenBLAS would
    /// otherwise start its workers as it loads, before the helper enters its sandbox, whose Landlock part
    /// binds only the thread that enters it and the threads made after).
    package static let environment = [
        "SWIFT_BACKTRACE": "enable=no", "OPENBLAS_NUM_THREADS": "1", "GOTO_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
    ]

    /// The helper's data-size limit for models of `bytes` bytes in all.
    package static func dataLimit(modelBytes bytes: Int) -> Int { max(768 << 20, 3 * bytes + (512 << 20)) }

    /// The helper's CPU-time limit in seconds for models of `bytes` bytes in all: 30 s + 20 s per GiB
    /// (reading a model takes about 1 s per GiB of CPU time).
    package static func cpuLimit(modelBytes bytes: Int) -> Int { 30 + Int((20 * Double(bytes) / Double(1 << 30)).rounded(.up)) }

    /// The helper's wall-clock limit in seconds for models of `bytes` bytes in all: 10 x its CPU-time limit,
    /// so that a machine saturated by other work slows the read without ending it.
    package static func wallClockLimit(modelBytes bytes: Int) -> Double { 10 * Double(cpuLimit(modelBytes: bytes)) }

    /// The helper's arguments after `read-check` for `paths`, `options` and an input array.
    package static func arguments(
        paths: [String], options: ModelOptions, inputPath: String?, dataLimit: Int, cpuLimit: Int, scratch: URL
    ) -> [String] {
        var arguments = ["--data-limit", String(dataLimit), "--cpu-limit", String(cpuLimit), "--scratch", scratch.path]
        if let e = options.epsilon { arguments += ["--bn-epsilon", String(e)] }
        if let p = options.epsilonPlacement { arguments += ["--bn-epsilon-mode", p.rawValue] }
        if let h = options.inputHeight { arguments += ["--height", String(h)] }
        if let w = options.inputWidth { arguments += ["--width", String(w)] }
        if let inputPath { arguments += ["--input", inputPath] }
        return arguments + ["--"] + paths
    }

    /// Reads `paths` (which exist) with `options`, and the Keras input declaration when `inputPath` is given,
    /// in the helper; throws what the helper met.
    package func read(paths: [String], options: ModelOptions, inputPath: String?) throws -> LoadedModelTransfer.Loaded {
        let bytes = paths.reduce(0) { $0 + ((try? FileManager.default.attributesOfItem(atPath: $1)[.size] as? Int) ?? 0) }
        let limit = Self.dataLimit(modelBytes: bytes), cpuSeconds = Self.cpuLimit(modelBytes: bytes)
        let seconds = Self.wallClockLimit(modelBytes: bytes)
        // The helper's folder, its TMPDIR and the one folder it may write in (a .keras archive's extracted
        // weights), private to this user, removed whatever becomes of the helper (and by the signal handlers
        // while it runs).
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("foldkit-helper-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw FoldKitError(.io, "cannot create the HDF5 helper's temporary folder: \(error.localizedDescription)", file: scratch.path)
        }
        let pending = PendingTemporaryItems.register(scratch)
        defer {
            try? FileManager.default.removeItem(at: scratch)
            PendingTemporaryItems.unregister(pending)
        }
        let process = Process()
        process.executableURL = executable
        process.arguments =
            ["read-check"]
            + Self.arguments(paths: paths, options: options, inputPath: inputPath, dataLimit: limit, cpuLimit: cpuSeconds, scratch: scratch)
        let output = Pipe()
        #if os(Linux)
            // A larger pipe (1 MiB, Linux's default maximum for a process): fewer turns between the two processes.
            // 1031: F_SETPIPE_SZ, which Glibc's module does not export.
            _ = fcntl(output.fileHandleForReading.fileDescriptor, 1031, 1 << 20)
        #endif
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.environment = ProcessInfo.processInfo.environment.merging(Self.environment.merging(["TMPDIR": scratch.path]) { _, new in new }) {
            _, new in new
        }
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        do { try process.run() } catch {
            throw FoldKitError(
                .io,
                "cannot start the helper process that reads HDF5 (\(error.localizedDescription)); \(Self.inProcessVariable)=1 reads a trusted file in process",
                file: executable.path)
        }
        let start = Date()
        // The hand-over is read as the helper writes it (the values go straight into the tensors' arrays).
        nonisolated(unsafe) var received = LoadedModelTransfer.Received.other(Data())
        let reading = DispatchGroup()
        let descriptor = output.fileHandleForReading.fileDescriptor
        DispatchQueue.global().async(group: reading) {
            received = LoadedModelTransfer.receive(from: descriptor, paths: paths, byteLimit: limit)
        }
        var timedOut = false
        if ended.wait(timeout: .now() + seconds) == .timedOut {
            timedOut = true
            kill(process.processIdentifier, SIGKILL)
            ended.wait()
        }
        reading.wait()
        let elapsed = String(format: "%.1f s", Date().timeIntervalSince(start))
        if !timedOut && process.terminationReason == .exit {
            switch (process.terminationStatus, received) {
            case (0, .model(let loaded)): return loaded
            case (0, .refused(let error)): throw error
            case (1, .other(let data)): if let error = try? JSONDecoder().decode(FoldKitError.self, from: data) { throw error }
            default: break
            }
        }
        let how: String
        if timedOut {
            how = "still running after \(Int(seconds)) s of wall-clock time, its limit"
        } else if process.terminationReason == .uncaughtSignal, process.terminationStatus == SIGXCPU {
            how = "ended by \(Self.signalName(process.terminationStatus)) after \(elapsed): it used its \(cpuSeconds) s of CPU time"
        } else if process.terminationReason == .uncaughtSignal {
            how = "ended by \(Self.signalName(process.terminationStatus)) after \(elapsed)"
        } else {
            how = "exit code \(process.terminationStatus) after \(elapsed)"
        }
        throw FoldKitError(
            .badInput,
            "libhdf5 could not read this file: the helper process reading it was \(how); libhdf5 crashes, loops or allocates without end on damaged HDF5 structures, so foldkit reads HDF5 in a helper process only",
            file: paths.joined(separator: ", "),
            expected: "an HDF5 file libhdf5 reads within \(limit >> 20) MiB of data and \(cpuSeconds) s of CPU time")
    }

    /// "SIGSEGV (signal 11)" for the signals a crashing reader ends with.
    package static func signalName(_ number: Int32) -> String {
        let names: [Int32: String] = [
            SIGILL: "SIGILL", SIGTRAP: "SIGTRAP", SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE", SIGKILL: "SIGKILL", SIGSEGV: "SIGSEGV",
            SIGSYS: "SIGSYS", SIGXCPU: "SIGXCPU",
        ]
        return "\(names[number] ?? "signal") (signal \(number))"
    }
}
