/// OpenBLAS's worker threads, for stretches of work that make no BLAS call.
///
/// The pthreads build of OpenBLAS starts its workers when the library is loaded, and after every threaded
/// call each worker spins on `sched_yield` for 2^28 cycles (about 0.1 s) waiting for more work before it
/// goes to sleep. On a 2-core machine that spin holds one core: a command that never calls BLAS (`convert`)
/// loses it during its first 0.1 s, and loops split across the cores (`Parallel`) right after a GEMM run
/// at half speed. With OpenBLAS FoldKit therefore runs the BLAS single-threaded and splits products
/// itself (`splitsProducts`), so the pool only spins after load (for which convert still stops it).
///
/// Every BLAS call FoldKit makes goes through `GEMM.swift`, which holds `gate` for the call; stopping the
/// workers takes the same gate, so they are never ended while one of FoldKit's products runs on another
/// thread (BLAS calls from outside FoldKit in the same process are not covered). Commands switch the stops
/// on through `ProcessTuning.stopsIdleBLASWorkers`; the OpenBLAS functions are looked up by name
/// (`DynamicSymbol`): with another BLAS (Accelerate) stops do nothing and products keep its threading.
enum BLASWorkerThreads {
    /// Held for every BLAS call and for a shutdown: shared by products when FoldKit splits them (several
    /// single-threaded products may run at once, e.g. one per block of a Winograd layer), exclusive for a
    /// product otherwise and for a shutdown.
    static let gate = SharedGate()
    /// Whether a BLAS call ran since the workers were last stopped (written under the exclusive gate; true
    /// at load, when the workers start spinning).
    /// Internal rather than private so that tests can simulate a spinning pool.
    static var mayBeSpinning = true

    /// Whether FoldKit splits products across cores itself (`GEMMPartition`) with the BLAS single-threaded:
    /// true with OpenBLAS (found by its `openblas_set_num_threads`) on more than one core. Decided at the
    /// first product: OpenBLAS is set to one thread for the whole process. Then no BLAS worker spins
    /// between products and holds a core that FoldKit's own loops (transforms, im2col, activations) need,
    /// which is what OpenBLAS's threading costs on 2 cores (see Docs/Performance.md, third round). Other
    /// BLAS libraries (Accelerate) keep their own threading.
    static let splitsProducts: Bool = {
        guard Parallel.workerCount > 1, let symbol = DynamicSymbol.address(of: "openblas_set_num_threads") else { return false }
        typealias SetThreads = @convention(c) (Int32) -> Void
        unsafeBitCast(symbol, to: SetThreads.self)(1)
        // Setting the thread count starts the pool again if it was ended (a command that stopped it at
        // start): its workers spin once more, so the next stop must not be skipped.
        mayBeSpinning = true
        return true
    }()

    /// Runs one product under the gate: `block(aOffset, bOffset, cOffset, rows, columns)` once for the whole
    /// m x n product, or once per part of its `GEMMPartition` (concurrently) when FoldKit splits products
    /// and `splitAcrossCores` is set (callers that already run one product per core pass false).
    @inline(__always)
    static func call(
        m: Int, n: Int, k: Int, transposeA: Bool, transposeB: Bool, lda: Int, ldb: Int, ldc: Int, splitAcrossCores: Bool,
        _ block: (_ aOffset: Int, _ bOffset: Int, _ cOffset: Int, _ rows: Int, _ columns: Int) -> Void
    ) {
        if splitsProducts {
            gate.lockShared()
            defer { gate.unlock() }
            if splitAcrossCores, let split = GEMMPartition.split(m: m, n: n, k: k, workers: Parallel.workerCount) {
                split.run(m: m, n: n, transposeA: transposeA, transposeB: transposeB, lda: lda, ldb: ldb, ldc: ldc, block)
            } else {
                block(0, 0, 0, m, n)
            }
        } else {
            gate.lockExclusive()
            defer { gate.unlock() }
            block(0, 0, 0, m, n)
            mayBeSpinning = true
        }
    }

    /// Ends OpenBLAS's idle worker threads with `blas_thread_shutdown_` (what OpenBLAS itself runs before
    /// a fork) if a BLAS call ran since they were last ended, or they still spin from load; OpenBLAS starts
    /// them again on its next threaded call (`exec_blas` re-initialises the pool), so results and thread
    /// counts of later BLAS calls do not change. Does nothing while another thread is inside a FoldKit BLAS
    /// call, or where that symbol is absent (another BLAS, or none linked).
    static func stopIdleWorkers() {
        guard let symbol = shutdownSymbol, gate.tryLockExclusive() else { return }
        defer { gate.unlock() }
        guard mayBeSpinning else { return }
        typealias Shutdown = @convention(c) () -> Int32
        _ = unsafeBitCast(symbol, to: Shutdown.self)()
        mayBeSpinning = false
    }

    /// Whether the BLAS linked has OpenBLAS's `blas_thread_shutdown_` (else `stopIdleWorkers` does nothing).
    static var canStopIdleWorkers: Bool { shutdownSymbol != nil }

    private static let shutdownSymbol = DynamicSymbol.address(of: "blas_thread_shutdown_")
}
