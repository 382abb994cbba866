import CEarlySignals
import Dispatch
import FoldKitCore
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// SIGINT (Ctrl-C) and SIGTERM handling: remove the temporary output folders this process is filling
/// (`PendingTemporaryItems`), then exit 130 (SIGINT) or 143 (SIGTERM), the shell's 128 + signal number.
/// A previous output at `--out` is never touched: it is replaced only by the final swap, which the
/// handler cannot interrupt halfway (Docs/Security.md, "Signals").
///
/// The signals are ignored for the default action from the executable's initialisation on (CEarlySignals,
/// a C constructor, so a signal during start-up no longer kills the process by its default action) and
/// delivered through `DispatchSource` on a queue of their own, so the cleanup runs as ordinary code, not in
/// an async-signal context. Once the handler starts, `isTerminating` is set before any folder is removed:
/// a command whose write then fails (its folder is gone) parks in `parkIfTerminating` instead of exiting 1,
/// and the process ends with the signal's code. SIGKILL cannot be caught: after one a
/// `.<name>.partial-<uuid>` folder stays beside `--out`.
enum TerminationSignals {
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []
    private static let lock = NSLock()
    nonisolated(unsafe) private static var terminating = false

    /// True once a SIGINT or SIGTERM handler has begun.
    static var isTerminating: Bool {
        lock.lock()
        defer { lock.unlock() }
        return terminating
    }

    /// Never returns while the signal handler is ending the process (it exits with the signal's code).
    static func parkIfTerminating() {
        while isTerminating { sleep(1) }
    }

    static func install() {
        precondition(foldkit_early_signals_installed() == 1, "the early signal guard did not run")
        let queue = DispatchQueue(label: "foldkit.termination-signals")
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
            source.setEventHandler { terminate(signalNumber: signalNumber) }
            source.resume()
            sources.append(source)
        }
    }

    private static func terminate(signalNumber: Int32) {
        lock.lock()
        terminating = true
        lock.unlock()
        let removed = PendingTemporaryItems.removeAll()
        let name = signalNumber == SIGINT ? "SIGINT" : "SIGTERM"
        let note = removed.isEmpty ? "" : "; removed the unfinished output"
        FileHandle.standardError.write(Data("\nfoldkit: interrupted by \(name)\(note)\n".utf8))
        // _exit: the other threads may still be running; no atexit handlers or stdio flushes race them.
        _exit(128 + signalNumber)
    }
}
