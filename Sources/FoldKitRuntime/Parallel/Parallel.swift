import Dispatch
import Foundation

/// Splits loops across the machine's cores when the work is big enough to pay for the hand-off.
///
/// Used for compute-bound loops (depthwise convolution, pooling, transcendental activations, batch norm,
/// Winograd transforms), im2col (its stride-2 gathers) and same-shape sums. Bias and leaky/relu passes
/// after a GEMM stay on the calling thread: splitting them gained nothing (Docs/Performance.md,
/// "Threading and memory (third round)"). Nothing here changes process-wide state: `ProcessTuning` is applied by the program, once.
package enum Parallel {
    package static let workerCount = max(1, ProcessInfo.processInfo.activeProcessorCount)

    /// Below this many elementary operations in total a loop runs on the calling thread.
    package static let minimumParallelWork = 1 << 16

    /// Calls `body(i)` for every i in 0..<count, in contiguous chunks, one chunk per core when
    /// `totalWork` (an estimate of elementary operations for the whole loop) is large enough.
    package static func forEach(_ count: Int, totalWork: Int, _ body: (Int) -> Void) {
        if workerCount == 1 || count < 2 || totalWork < minimumParallelWork {
            for i in 0..<count { body(i) }
            return
        }
        let chunks = min(count, workerCount)
        fork(chunks) { chunk in
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
        let chunks = min(count, workerCount)
        fork(chunks) { chunk in
            body(chunk, (count * chunk / chunks)..<(count * (chunk + 1) / chunks))
        }
    }

    /// Calls `body(range)` over disjoint ranges covering 0..<count, one per core when worth it.
    static func forRanges(_ count: Int, totalWork: Int, _ body: (Range<Int>) -> Void) {
        if workerCount == 1 || count < 2 || totalWork < minimumParallelWork {
            body(0..<count)
            return
        }
        let chunks = min(count, workerCount)
        fork(chunks) { chunk in
            body((count * chunk / chunks)..<(count * (chunk + 1) / chunks))
        }
    }

    /// Calls `body(i)` for every i in 0..<iterations concurrently on Dispatch's pool and returns when all
    /// have finished (fork and join): the one place FoldKit hands work to other threads for a loop.
    ///
    /// `body` need not be `Sendable`: the callers' iterations write disjoint memory (their own rows, tiles,
    /// layers or result slots) and read only what no iteration writes, and nothing `body` captures outlives
    /// the call, which is the guarantee `Sendable` would otherwise have to give.
    package static func fork(_ iterations: Int, _ body: (Int) -> Void) {
        withoutActuallyEscaping(body) { escapable in
            let shared = ForkJoinBody(run: escapable)
            DispatchQueue.concurrentPerform(iterations: iterations) { i in shared.run(i) }
        }
    }
}

/// A loop body handed to `Parallel.fork`'s threads; see there why it may be shared.
private struct ForkJoinBody: @unchecked Sendable {
    let run: (Int) -> Void
}
