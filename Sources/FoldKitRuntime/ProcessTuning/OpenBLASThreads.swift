#if canImport(CBLAS)
    import CBLAS
#endif

/// OpenBLAS's thread pool, for `ProcessTuning` only: FoldKit's compute never calls this (products are
/// threaded as `ExecutorOptions.productThreading` says, without touching the BLAS's settings).
///
/// The pthreads build of OpenBLAS starts its workers when the library is loaded, and after every threaded
/// call each worker spins on `sched_yield` for 2^28 cycles (about 0.1 s) before it sleeps: on a 2-core
/// machine that spin holds a core FoldKit's own loops need. Elsewhere (Accelerate on Apple platforms)
/// every function here does nothing and says so.
enum OpenBLASThreads {
    /// OpenBLAS's thread count (`openblas_get_num_threads`); nil without OpenBLAS.
    static var count: Int? {
        #if canImport(CBLAS)
            return Int(openblas_get_num_threads())
        #else
            return nil
        #endif
    }

    /// Sets OpenBLAS's thread count (`openblas_set_num_threads`); false without OpenBLAS. Raising it
    /// starts the pool again if it was ended.
    @discardableResult
    static func setCount(_ threads: Int) -> Bool {
        #if canImport(CBLAS)
            openblas_set_num_threads(Int32(threads))
            return true
        #else
            return false
        #endif
    }

    /// Ends the idle workers with `blas_thread_shutdown_` (what OpenBLAS itself runs before a fork; not in
    /// its header, so looked up by name). OpenBLAS starts them again on its next threaded call, so results and
    /// thread counts of later calls do not change. Must not run while another thread is inside a BLAS call.
    /// False where the symbol is absent.
    @discardableResult
    static func endIdleWorkers() -> Bool {
        guard let symbol = DynamicSymbol.address(of: "blas_thread_shutdown_") else { return false }
        typealias Shutdown = @convention(c) () -> Int32
        _ = unsafeBitCast(symbol, to: Shutdown.self)()
        return true
    }
}
