import Dispatch
import Foundation

/// Per-class greedy non-max suppression, the engine of `DetectionDecoder.nonMaxSuppression`.
///
/// Rule (all-pairs greedy NMS, as Darknet's `do_nms_sort` and OpenCV's `NMSBoxes`):
///
///     sort the boxes by descending score (ties: class, head, cell, anchor, then input order)
///     for each box in that order:
///         drop it if a kept box of its class shares a cell of the 32 x 32 grid over [0, 1]^2 with it
///         and has IoU > iouThreshold with it; otherwise keep it
///
/// A box covers the cells floor(32 * (x -+ width/2)), floor(32 * (y -+ height/2)), clamped to 0...31
/// (a NaN edge: the whole range). Two boxes with IoU > 0 always share a cell, so for thresholds >= 0
/// the grid condition changes nothing: this is exactly all-pairs greedy NMS; for negative thresholds
/// it limits suppression to boxes that are near each other.
///
/// Steps: (1) `sortedOrder`; (2) `ClassRuns`: the sorted boxes grouped by class, each class a run in
/// sorted order; (3) each class suppressed by a `KeptBoxIndex` (a grid index of the kept boxes, so a
/// box is checked only against kept boxes near it), classes spread over the cores, largest first;
/// (4) the kept boxes read back in the global sorted order.
package enum GreedyNMS {
    /// The rule's grid: cells per axis over [0, 1].
    static let grid = 32

    /// The kept boxes in descending score order (see the type's rule).
    package static func apply(_ detections: [Detection], iouThreshold: Float) -> [Detection] {
        keptIndices(detections, iouThreshold: iouThreshold).map { detections[$0] }
    }

    /// The indices (into `detections`) of the kept boxes, in descending score order.
    package static func keptIndices(_ detections: [Detection], iouThreshold: Float) -> [Int] {
        let order = sortedOrder(detections)
        let runs = ClassRuns(order: order, detections: detections)
        let keptInRuns = suppressEachClass(runs, iouThreshold: iouThreshold)
        var kept = [Bool](repeating: false, count: detections.count)
        for (position, index) in runs.members.enumerated() where keptInRuns[position] { kept[index] = true }
        return order.filter { kept[$0] }
    }

    /// Greedy NMS of every class run; flag i tells whether `runs.members[i]` is kept.
    private static func suppressEachClass(_ runs: ClassRuns, iouThreshold: Float) -> [Bool] {
        // For thresholds >= 0 only overlapping boxes can suppress one another, and overlapping boxes share
        // a cell at any resolution: a finer index (128 x 128, refining the rule's 32 x 32) meets fewer
        // non-overlapping neighbours. For a negative threshold, sharing a 32 x 32 cell is the rule itself.
        let fine = iouThreshold >= 0 ? 4 * grid : grid
        let boxes = runs.members.map { runs.detections[$0] }
        let results = ClassResults(count: runs.classCount)
        let queue = ClassQueue(runs.largestFirst)
        let workers = boxes.count >= 4096 ? min(max(1, ProcessInfo.processInfo.activeProcessorCount), runs.classCount) : 1
        let work: @Sendable (Int) -> Void = { _ in
            var index = KeptBoxIndex(fine: fine)
            while let c = queue.take() {
                results.store(c, index.suppress(boxes[runs.range(of: c)], iouThreshold: iouThreshold))
            }
        }
        if workers > 1 { DispatchQueue.concurrentPerform(iterations: workers, execute: work) } else { work(0) }
        return results.concatenated()
    }

    /// Indices of `detections` sorted by descending score, then class, head, cell, anchor; equal keys keep
    /// their input order (the order a stable sort of the boxes by that key gives).
    package static func sortedOrder(_ detections: [Detection]) -> [Int] {
        func tieBreak(_ a: Int, _ b: Int) -> Bool {
            let x = detections[a], y = detections[b]
            return (x.classIndex, x.head, x.cell, x.anchor, a) < (y.classIndex, y.head, y.cell, y.anchor, b)
        }
        // NaN scores (never produced by the decoder) have no integer key: compare the scores themselves.
        if detections.contains(where: { $0.score.isNaN }) {
            return detections.indices.sorted { a, b in
                detections[a].score != detections[b].score ? detections[a].score > detections[b].score : tieBreak(a, b)
            }
        }
        // Scores as integers that sort like -score: one integer comparison for most pairs.
        var keyed = detections.indices.map { (key: descendingKey(detections[$0].score), index: $0) }
        keyed.sort { $0.key != $1.key ? $0.key < $1.key : tieBreak($0.index, $1.index) }
        return keyed.map(\.index)
    }

    /// A UInt32 that orders like -score for non-NaN floats (with -0 and +0 equal, as == has them).
    @inline(__always)
    static func descendingKey(_ score: Float) -> UInt32 {
        let bits = (score == 0 ? 0 : score).bitPattern  // -0 -> +0
        let ascending = bits & 0x8000_0000 != 0 ? ~bits : bits | 0x8000_0000
        return ~ascending
    }

    /// The sorted boxes grouped by class: `members` holds the indices of class 0's boxes in sorted order,
    /// then class 1's, ... (classes numbered by rank among the distinct class indices).
    struct ClassRuns: Sendable {
        let detections: [Detection]
        let members: [Int]
        /// Class c's members are members[start[c] ..< start[c + 1]].
        let start: [Int]
        var classCount: Int { start.count - 1 }

        init(order: [Int], detections: [Detection]) {
            self.detections = detections
            let distinct = Array(Set(detections.map(\.classIndex))).sorted()
            let rank = Dictionary(uniqueKeysWithValues: distinct.enumerated().map { ($1, $0) })
            let classOf = detections.map { rank[$0.classIndex] ?? 0 }
            var start = [Int](repeating: 0, count: distinct.count + 1)
            for c in classOf { start[c + 1] += 1 }
            for c in distinct.indices { start[c + 1] += start[c] }
            var next = start, members = [Int](repeating: 0, count: detections.count)
            for i in order {  // a counting sort by class that keeps the sorted order within each class
                members[next[classOf[i]]] = i
                next[classOf[i]] += 1
            }
            self.members = members
            self.start = start
        }

        func range(of c: Int) -> Range<Int> { start[c]..<start[c + 1] }

        /// Class numbers, largest class first (so that the cores finish together).
        var largestFirst: [Int] { (0..<classCount).sorted { range(of: $0).count > range(of: $1).count } }
    }

    /// Hands out class numbers to the workers, one at a time.
    final class ClassQueue: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [Int]
        private var position = 0
        init(_ items: [Int]) { self.items = items }
        func take() -> Int? {
            lock.lock()
            defer { lock.unlock() }
            guard position < items.count else { return nil }
            position += 1
            return items[position - 1]
        }
    }

    /// The workers' kept flags, one array per class.
    final class ClassResults: @unchecked Sendable {
        private let lock = NSLock()
        private var flags: [[Bool]]
        init(count: Int) { flags = Array(repeating: [], count: count) }
        func store(_ c: Int, _ kept: [Bool]) {
            lock.lock()
            flags[c] = kept
            lock.unlock()
        }
        func concatenated() -> [Bool] { flags.flatMap { $0 } }
    }
}
