#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// OpenBLAS's worker threads, for stretches of work that make no BLAS call.
///
/// The pthreads build of OpenBLAS starts its workers when the library is loaded, and after every threaded
/// call each worker spins on `sched_yield` for 2^28 cycles (about 0.1 s) waiting for more work before it
/// goes to sleep. On a 2-core machine that spin holds one core: a command that never calls BLAS (`convert`)
/// loses it during its first 0.1 s, and loops split across the cores (`Parallel`) right after a GEMM run
/// at half speed.
///
/// Every BLAS call FoldKit makes goes through `GEMM.swift`, which holds `gate` for the call; stopping the
/// workers takes the same gate, so they are never ended while one of FoldKit's products runs on another
/// thread (BLAS calls from outside FoldKit in the same process are not covered).
public enum BLASWorkerThreads {
    /// Held for every BLAS call and for a shutdown.
    static let gate = NSLock()
    /// Whether a BLAS call ran since the workers were last stopped (guarded by `gate`; true at load,
    /// when the workers start spinning).
    private static var mayBeSpinning = true

    /// Runs one BLAS call under the gate and notes that the workers are spinning afterwards.
    @inline(__always)
    static func call(_ body: () -> Void) {
        gate.lock()
        body()
        mayBeSpinning = true
        gate.unlock()
    }

    /// Ends OpenBLAS's idle worker threads with `blas_thread_shutdown_` (what OpenBLAS itself runs before
    /// a fork) if a BLAS call ran since they were last ended; OpenBLAS starts them again on its next
    /// threaded call (`exec_blas` re-initialises the pool), so results and thread counts of later BLAS
    /// calls do not change. Does nothing while another thread is inside a FoldKit BLAS call, or where that
    /// symbol is absent (another BLAS, or none linked).
    public static func stopIdleWorkers() {
        #if os(Linux)
        guard gate.try() else { return }
        defer { gate.unlock() }
        guard mayBeSpinning, let symbol = shutdownSymbol else { return }
        typealias Shutdown = @convention(c) () -> Int32
        _ = unsafeBitCast(symbol, to: Shutdown.self)()
        mayBeSpinning = false
        #endif
    }

    #if os(Linux)
    private static let shutdownSymbol = dlsym(nil, "blas_thread_shutdown_")
    #endif
}
