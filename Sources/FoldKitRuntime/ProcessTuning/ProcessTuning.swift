/// Process-wide tuning of the C libraries under FoldKit (glibc malloc, OpenBLAS's threads): settings that
/// change the whole process, not one executor, so the program chooses them once at start with `apply()`,
/// before FoldKit work runs on other threads. FoldKit never applies them by itself: a program that links
/// the library keeps its own malloc and BLAS settings unless it applies these.
///
/// Settings (each does nothing where its library is absent: macOS with Accelerate, other C libraries):
/// - `keepsFreedMemory` (glibc): raises malloc's mmap threshold to 1 GiB and its trim threshold to
///   2 GiB - 1 (`MallocReuse`, which gives the reason for each value), so big blocks a pass frees stay in
///   the heap and the next pass reuses them instead of faulting fresh zero-filled pages in. Trade-off:
///   memory the process frees stays with it until it ends, so peak RSS can grow (fragments glibc would
///   have returned). `foldkit bench`, `foldkit verify` and `foldkit export` apply it; a program running many passes should too.
/// - `singleThreadedBLAS` (OpenBLAS): sets OpenBLAS to one thread and ends the worker pool it started at
///   load (which would otherwise spin on one of the cores for about 0.1 s, `OpenBLASThreads`). FoldKit then
///   spreads each product over the cores itself: run executors with `productThreading` (which is
///   `.splitAcrossCores` once this took effect). Every `foldkit` command that computes applies it, because
///   OpenBLAS's own threading left a worker spinning after every product against the loops that run between
///   products (Docs/Performance.md, "Threading and memory (third round)").
public struct ProcessTuning: Equatable, Sendable {
    /// Keep memory freed by the process for reuse (glibc's mmap and trim thresholds raised).
    public var keepsFreedMemory: Bool
    /// Run OpenBLAS on one thread, its idle pool ended; FoldKit splits products across cores instead.
    public var singleThreadedBLAS: Bool

    /// The libraries' defaults unless told otherwise.
    public init(keepsFreedMemory: Bool = false, singleThreadedBLAS: Bool = false) {
        self.keepsFreedMemory = keepsFreedMemory
        self.singleThreadedBLAS = singleThreadedBLAS
    }

    /// Applies the settings to the process; call once at start, before FoldKit work runs on other threads.
    /// A setting that is false changes nothing (glibc's dynamic thresholds cannot be restored; the BLAS's
    /// thread count is the program's). Returns the settings that took effect: a setting is false there when
    /// its library is absent or refused it.
    @discardableResult
    public func apply() -> ProcessTuning {
        let keeps = keepsFreedMemory && MallocReuse.keepFreedMemory()
        var singleThreaded = false
        if singleThreadedBLAS, Parallel.workerCount > 1, OpenBLASThreads.setCount(1) {
            // Setting the count may start the pool again; ending it afterwards leaves none running, and with
            // one thread OpenBLAS never starts it again.
            OpenBLASThreads.endIdleWorkers()
            singleThreaded = true
        }
        return ProcessTuning(keepsFreedMemory: keeps, singleThreadedBLAS: singleThreaded)
    }

    /// How executors in a process tuned like this should thread their products: `.splitAcrossCores` when
    /// the BLAS runs on one thread (use the value `apply()` returns), `.library` otherwise.
    public var productThreading: ProductThreading { singleThreadedBLAS ? .splitAcrossCores : .library }
}
