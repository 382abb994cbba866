#if canImport(Glibc)
import Glibc
#endif

/// OpenBLAS's worker threads, for commands that make no BLAS call.
///
/// The pthreads build of OpenBLAS starts its workers when the library is loaded, and each worker spins
/// on `sched_yield` for 2^28 cycles (about 0.1 s) waiting for work before it goes to sleep. A command that
/// never calls BLAS (`convert`) would lose most of a core to that spin during its first 0.1 s.
public enum BLASWorkerThreads {
    /// Ends OpenBLAS's idle worker threads with `blas_thread_shutdown_` (what OpenBLAS itself runs before
    /// a fork); OpenBLAS starts them again on its next threaded call (`exec_blas` re-initialises the pool),
    /// so results and thread counts of later BLAS calls do not change. Does nothing where that symbol is
    /// absent (another BLAS, or none linked).
    public static func stopIdleWorkers() {
        #if os(Linux)
        guard let symbol = dlsym(nil, "blas_thread_shutdown_") else { return }
        typealias Shutdown = @convention(c) () -> Int32
        _ = unsafeBitCast(symbol, to: Shutdown.self)()
        #endif
    }
}
