import CEarlySignals
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The confinement the HDF5 helper (`ReadCheckCommand`) puts itself in before libhdf5 reads a byte
/// (CEarlySignals/HelperSandbox.c; Docs/Security.md, "HDF5 read in a helper process"): on Linux no new
/// privileges, a Landlock ruleset (read only the model files, the input array and the system folders;
/// create, write or remove only in the helper's own temporary folder) and a seccomp filter (no new
/// program or process, no socket, no signal to another process, no kernel-facing call). Elsewhere none.
///
/// Landlock binds the thread that enforces it and the threads it makes afterwards, so the helper enters
/// the sandbox while it has one thread: `FoldKitMain` starts no signal handling thread for `read-check`.
enum HelperSandbox {
    /// What holds once entered, and what the probe saw.
    struct Report: Codable {
        var noNewPrivileges: Bool
        /// The kernel's Landlock ABI version (0: none) and whether the ruleset is enforced.
        var landlockABI: Int
        var landlock: Bool
        var seccomp: Bool
        /// Threads of the process when the sandbox was entered (-1: unknown).
        var threads: Int
        /// `--sandbox-probe` only: each attempt and its outcome ("refused: ..." or "allowed").
        var probes: [String: String]?
    }

    /// The folders beneath which the helper may read besides the files it is given: the system's
    /// libraries and configuration, and what the C library reads of /proc, /sys and /dev.
    static let systemFolders = [
        "/usr", "/lib", "/lib32", "/lib64", "/etc", "/proc/self", "/sys/devices/system/cpu", "/dev/null", "/dev/zero", "/dev/urandom",
    ]

    /// Enters the sandbox: reading allowed beneath `readable` and the system folders, writing beneath `writable`.
    static func enter(readable: [String], writable: String?) -> Report {
        let ruleset = foldkit_sandbox_begin()
        if ruleset >= 0 {
            for path in readable + systemFolders { _ = foldkit_sandbox_allow_read(ruleset, path) }
            if let writable { _ = foldkit_sandbox_allow_write(ruleset, writable) }
        }
        let threads = Int(foldkit_sandbox_threads())
        let held = Int(foldkit_sandbox_enforce(ruleset))
        return Report(
            noNewPrivileges: held & Int(FOLDKIT_SANDBOX_NO_NEW_PRIVS) != 0, landlockABI: Int(foldkit_sandbox_landlock_abi()),
            landlock: held & Int(FOLDKIT_SANDBOX_LANDLOCK) != 0, seccomp: held & Int(FOLDKIT_SANDBOX_SECCOMP) != 0, threads: threads,
            probes: nil)
    }

    /// Tries, inside the sandbox, what it must refuse and what it must allow (`read-check --sandbox-probe`).
    static func probe(_ report: Report, scratch: String?) -> Report {
        var probes: [String: String] = [:]
        func outcome(_ result: Int32) -> String { result >= 0 ? "allowed" : "refused: \(String(cString: strerror(errno)))" }
        func create(_ path: String) -> String {
            let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            if descriptor >= 0 { close(descriptor) }
            return outcome(descriptor)
        }
        if let scratch {
            let folder = URL(fileURLWithPath: scratch)
            probes["create in the helper's folder"] = create(folder.appendingPathComponent("probe").path)
            probes["create beside the helper's folder"] = create(folder.deletingLastPathComponent().appendingPathComponent("probe-\(getpid())").path)
        }
        probes["create in the working folder"] = create("probe-\(getpid())")
        let home = open(NSHomeDirectory(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if home >= 0 { close(home) }
        probes["read the home folder"] = outcome(home)
        var pid: pid_t = 0
        let arguments: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/true"), nil]
        defer { for argument in arguments { free(argument) } }
        let spawned = posix_spawn(&pid, "/bin/true", nil, nil, arguments, nil)
        if spawned == 0 { waitpid(pid, nil, 0) }
        probes["start /bin/true"] = spawned == 0 ? "allowed" : "refused: \(String(cString: strerror(spawned)))"
        #if canImport(Glibc)
            let tcp = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let tcp = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        if tcp >= 0 { close(tcp) }
        probes["open a TCP socket"] = outcome(tcp)
        probes["signal the parent"] = outcome(kill(getppid(), 0))
        probes["signal itself"] = outcome(kill(getpid(), 0))
        var cpu = rlimit()
        #if canImport(Glibc)
            let got = getrlimit(__rlimit_resource_t(RLIMIT_CPU.rawValue), &cpu)
            let unlimited = rlim_t.max  // Glibc's RLIM_INFINITY, which Swift does not import
        #else
            let got = getrlimit(RLIMIT_CPU, &cpu)
            let unlimited = RLIM_INFINITY
        #endif
        probes["CPU-time limit"] =
            got != 0 ? "unknown" : cpu.rlim_cur == unlimited ? "none" : "SIGXCPU at \(cpu.rlim_cur) s, SIGKILL at \(cpu.rlim_max) s"
        var copy = report
        copy.probes = probes
        return copy
    }
}
