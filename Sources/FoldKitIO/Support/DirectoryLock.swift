import FoldKitCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An exclusive `flock(2)` on a folder, held from `init` until `unlock()` (or deinit).
///
/// `AtomicOutputDirectory` locks the folder that holds `--out` while it swaps the finished output into
/// place, so two FoldKit processes writing the same `--out` commit one after the other: the last one
/// wins and each result is complete (Docs/Security.md, "Concurrency"). Locking the parent folder
/// itself leaves no lock file behind. `flock` locks are advisory and released by the kernel when the
/// process dies, so a killed run never leaves the folder locked.
final class DirectoryLock {
    private var descriptor: Int32

    /// Opens `path` (a folder) and waits until the exclusive lock is ours.
    init(folder path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_DIRECTORY)
        guard descriptor >= 0 else {
            throw FoldKitError(.io, "cannot open folder to lock it: \(String(cString: strerror(errno)))", file: path)
        }
        while flock(descriptor, LOCK_EX) != 0 {
            if errno == EINTR { continue }
            let reason = String(cString: strerror(errno))
            _ = close(descriptor)
            throw FoldKitError(.io, "cannot lock folder: \(reason)", file: path)
        }
        self.descriptor = descriptor
    }

    deinit { unlock() }

    /// Releases the lock (closing the descriptor releases it).
    func unlock() {
        guard descriptor >= 0 else { return }
        _ = close(descriptor)
        descriptor = -1
    }
}
