import Dispatch
import Foundation

/// Splits loops across the machine's cores when the work is big enough to pay for the hand-off.
///
/// Used for compute-bound loops (depthwise convolution, pooling, transcendental activations, batch norm,
/// Winograd transforms), im2col (its stride-2 gathers) and same-shape sums. Bias and leaky/relu passes
/// after a GEMM stay on the calling thread: splitting them gained nothing (see Docs/Performance.md,
/// third round).
/// Before a loop goes to the cores, OpenBLAS's idle workers are ended when a command asked for it
/// (`ProcessTuning.stopsIdleBLASWorkers`; otherwise that call does nothing).
enum Parallel {
    static let workerCount = max(1, ProcessInfo.processInfo.activeProcessorCount)

    /// Below this many elementary operations in total a loop runs on the calling thread.
    static let minimumParallelWork = 1 << 16

    /// Calls `body(i)` for every i in 0..<count, in contiguous chunks, one chunk per core when
    /// `totalWork` (an estimate of elementary operations for the whole loop) is large enough.
    static func forEach(_ count: Int, totalWork: Int, _ body: (Int) -> Void) {
        if workerCount == 1 || count < 2 || totalWork < minimumParallelWork {
            for i in 0..<count { body(i) }
            return
        }
        ProcessTuning.beforeParallelWork()
        let chunks = min(count, workerCount)
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            let start = count * chunk / chunks
            let end = count * (chunk + 1) / chunks
            for i in start..<end { body(i) }
        }
    }

    /// Calls `body(chunk, range)` over disjoint ranges covering 0..<count, one per core when worth it;
    /// `chunk` (0..<workerCount) is distinct for ranges that run at the same time, so a caller can give
    /// each its own slice of scratch memory.
    static func forChunks(_ count: Int, totalWork: Int, _ body: (_ chunk: Int, _ range: Range<Int>) -> Void) {
        if workerCount == 1 || count < 2 || totalWork < minimumParallelWork {
            body(0, 0..<count)
            return
        }
        ProcessTuning.beforeParallelWork()
        let chunks = min(count, workerCount)
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            body(chunk, (count * chunk / chunks)..<(count * (chunk + 1) / chunks))
        }
    }

    /// Calls `body(range)` over disjoint ranges covering 0..<count, one per core when worth it.
    static func forRanges(_ count: Int, totalWork: Int, _ body: (Range<Int>) -> Void) {
        if workerCount == 1 || count < 2 || totalWork < minimumParallelWork {
            body(0..<count)
            return
        }
        ProcessTuning.beforeParallelWork()
        let chunks = min(count, workerCount)
        DispatchQueue.concurrentPerform(iterations: chunks) { chunk in
            body((count * chunk / chunks)..<(count * (chunk + 1) / chunks))
        }
    }
}
