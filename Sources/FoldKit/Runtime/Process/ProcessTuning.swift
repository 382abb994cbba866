/// Process-wide tuning of the C libraries under FoldKit (glibc malloc, OpenBLAS's threads): settings that
/// change the whole process, not one executor, so a command chooses them once at start with `apply()`.
/// Without it a process runs with the libraries' defaults (a library user's program included).
///
/// Settings (each does nothing where its library is absent: macOS with Accelerate, other C libraries):
/// - `keepsFreedMemory` (glibc): raises malloc's mmap threshold to 1 GiB and its trim threshold to
///   2 GiB - 1 (`MallocReuse`, which gives the reason for each value), so big blocks a pass frees stay in
///   the heap and the next pass reuses them instead of faulting fresh zero-filled pages in. Trade-off:
///   memory the process frees stays with it until it ends, so peak RSS can grow (fragments glibc would
///   have returned). Used by `foldkit bench` (passes over and over, as an application runs frame after
///   frame) and `foldkit verify` (the float64 reference pass reuses what the compared float32 outputs
///   freed). A library user running many passes should switch it on too.
/// - `stopsIdleBLASWorkers` (OpenBLAS): after load and after each threaded product OpenBLAS's workers
///   spin on `sched_yield` for about 0.1 s, holding a core that FoldKit's own parallel loops need
///   (`BLASWorkerThreads`). `apply()` ends the pool started at load (it would hold a core while convert or
///   verify folds), and from then on `Parallel` ends idle workers before every loop it splits across cores
///   (layer comparisons, kernels between products) if a BLAS call may have woken them since. Trade-off:
///   OpenBLAS starts its pool again on its next threaded call; a stop is skipped while a FoldKit product
///   runs on another thread. Used by `foldkit convert` (which makes no BLAS call) and `foldkit verify`.
///
/// Not a setting: with OpenBLAS on more than one core, FoldKit always runs the BLAS single-threaded and
/// splits each product across the cores itself (`splitsBLASProducts`), because OpenBLAS's own threading
/// left a worker spinning after every product against the loops that run between products. This is set
/// at the first product whether or not `apply()` ran. The other commands (fixtures, inspect,
/// seed-weights) apply nothing.
public struct ProcessTuning: Equatable, Sendable {
    /// Keep memory freed by the process for reuse (glibc's mmap and trim thresholds raised).
    public var keepsFreedMemory: Bool
    /// End OpenBLAS's idle workers now and before every loop FoldKit splits across cores.
    public var stopsIdleBLASWorkers: Bool

    /// The libraries' defaults unless told otherwise.
    public init(keepsFreedMemory: Bool = false, stopsIdleBLASWorkers: Bool = false) {
        self.keepsFreedMemory = keepsFreedMemory
        self.stopsIdleBLASWorkers = stopsIdleBLASWorkers
    }

    /// Applies the settings to the process; call once at start, before FoldKit work runs on other threads.
    /// `stopsIdleBLASWorkers` is set either way (false turns the stops off again); `keepsFreedMemory`
    /// false leaves malloc as it is, since glibc's dynamic thresholds cannot be restored. Returns the
    /// settings that took effect: a setting is false there when its library is absent or refused it.
    @discardableResult
    public func apply() -> ProcessTuning {
        let keeps = keepsFreedMemory && MallocReuse.keepFreedMemory()
        Self.stopsIdleWorkersBeforeParallelWork = stopsIdleBLASWorkers
        if stopsIdleBLASWorkers { BLASWorkerThreads.stopIdleWorkers() }
        return ProcessTuning(keepsFreedMemory: keeps, stopsIdleBLASWorkers: stopsIdleBLASWorkers && BLASWorkerThreads.canStopIdleWorkers)
    }

    /// Whether FoldKit runs the BLAS single-threaded and splits each product across the cores itself:
    /// true with OpenBLAS on more than one core (decided at the first product, for the whole process),
    /// false with other BLAS libraries (Accelerate), which keep their own threading.
    static var splitsBLASProducts: Bool { BLASWorkerThreads.splitsProducts }

    /// Set by `apply()` only (a command's start, before other threads run FoldKit work).
    private static var stopsIdleWorkersBeforeParallelWork = false

    /// Called by `Parallel` just before it splits a loop across cores: ends OpenBLAS's idle workers if
    /// `stopsIdleBLASWorkers` was applied, and does nothing otherwise.
    @inline(__always)
    static func beforeParallelWork() {
        if stopsIdleWorkersBeforeParallelWork { BLASWorkerThreads.stopIdleWorkers() }
    }
}
