import Dispatch
import Foundation

/// The engine of `DetectionDecoder.nonMaxSuppression`: per-class greedy NMS that checks each candidate
/// only against kept boxes that can touch it, each at most once, with no allocation per box.
///
/// Rule (the one the all-pairs greedy NMS follows): boxes are taken in descending score (ties: class,
/// head, cell, anchor, then input order); a box is dropped when a kept box of its class shares a cell of
/// the 32 x 32 grid over [0, 1]^2 with it and has IoU > `iouThreshold` with it. Cell ranges are
/// floor(32 * (x -+ width/2)), floor(32 * (y -+ height/2)) clamped to 0...31 (NaN: the whole range).
/// Two boxes with IoU > 0 always share a cell, so for thresholds >= 0 this is exactly all-pairs greedy NMS.
///
/// Index: kept boxes of the class being suppressed live in a hierarchy of grids, F >> sx columns by
/// F >> sy rows for every pair of levels sx, sy (F = 128, a refinement of the rule's 32 x 32 grid, for
/// thresholds >= 0, where only overlapping boxes matter; F = 32 otherwise: 8 x 8 or 6 x 6 grids). A box
/// is stored in the finest grid (smallest sx, sy) in which it spans at most two columns and two rows, so
/// in at most four cells: a small box in the fine grid, a wide thin box in a grid with few columns and
/// many rows, a box covering the image in the 1 x 1 grid. A candidate visits, in every non-empty grid
/// (those nearest its own size first, so that a suppressed candidate stops early), the cells its range
/// covers, or the grid's boxes one by one when they are fewer than those cells; a stamp per kept box
/// skips boxes already seen for this candidate, and the F-grid cell ranges are compared before the IoU.
///
/// Classes are independent, so they are spread over the cores (largest first); the kept flags are then
/// read in the global sorted order, which gives the list NMS of all boxes in one pass returns.
enum GreedyNMS {
    /// The rule's grid: cells per axis over [0, 1].
    static let grid = 32

    /// The kept boxes in descending score order (see the type's rule).
    static func apply(_ detections: [Detection], iouThreshold: Float) -> [Detection] {
        keptIndices(detections, iouThreshold: iouThreshold).map { detections[$0] }
    }

    /// The indices (into `detections`) of the kept boxes, in descending score order.
    static func keptIndices(_ detections: [Detection], iouThreshold: Float) -> [Int] {
        let order = sortedOrder(detections)
        // Boxes of each class in sorted order: a counting sort by class over the sorted order (classes
        // are grouped by their rank among the distinct class indices, so any Int is fine).
        let classes = Array(Set(detections.map(\.classIndex))).sorted()
        var slot = [Int: Int](minimumCapacity: classes.count)
        for (i, c) in classes.enumerated() { slot[c] = i }
        var start = [Int](repeating: 0, count: classes.count + 1)
        let classOf = detections.map { slot[$0.classIndex] ?? 0 }
        for c in classOf { start[c + 1] += 1 }
        for c in 0..<classes.count { start[c + 1] += start[c] }
        var fill = start
        var grouped = [Int32](repeating: 0, count: detections.count)
        for i in order {
            grouped[fill[classOf[i]]] = Int32(i)
            fill[classOf[i]] += 1
        }
        // The boxes themselves in that order, so that each class is read front to back.
        let groupedBoxes = grouped.map { detections[Int($0)] }
        var keptAt = [Bool](repeating: false, count: detections.count)
        // For thresholds >= 0 only overlapping boxes can suppress one another, and overlapping boxes share a
        // cell at any resolution: a finer index (128 x 128, which refines the 32 x 32 cells) finds fewer
        // non-overlapping neighbours. Otherwise (a negative threshold, where sharing a 32 x 32 cell is the
        // rule) the index is the rule's own grid.
        let fine = iouThreshold >= 0 ? 4 * grid : grid
        let classCount = classes.count
        // Largest classes first, so that the cores finish together.
        let sizes: [Int] = (0..<classCount).map { start[$0 + 1] - start[$0] }
        let schedule: [Int] = (0..<classCount).sorted { (a: Int, b: Int) -> Bool in sizes[a] > sizes[b] }
        groupedBoxes.withUnsafeBufferPointer { boxes in
            keptAt.withUnsafeMutableBufferPointer { keptFlags in
                let kept = keptFlags
                let workers = detections.count >= 4096 ? min(Parallel.workerCount, classCount) : 1
                let next = ClassQueue(schedule)
                let work = { (_: Int) in
                    let index = ClassIndex(fine: fine)
                    while let c = next.take() {
                        index.suppress(boxes: UnsafeBufferPointer(rebasing: boxes[start[c]..<start[c + 1]]), iouThreshold: iouThreshold,
                                       keptFlags: UnsafeMutableBufferPointer(rebasing: kept[start[c]..<start[c + 1]]))
                    }
                }
                if workers > 1 { DispatchQueue.concurrentPerform(iterations: workers, execute: work) } else { work(0) }
            }
        }
        var kept = [Bool](repeating: false, count: detections.count)
        for (position, i) in grouped.enumerated() where keptAt[position] { kept[Int(i)] = true }
        return order.filter { kept[$0] }
    }

    /// Indices of `detections` sorted by descending score, then class, head, cell, anchor; equal keys keep
    /// their input order (the order a stable sort of the boxes by that key gives).
    static func sortedOrder(_ detections: [Detection]) -> [Int] {
        detections.withUnsafeBufferPointer { d in
            // Scores as keys that sort as integers: descending score = ascending key. NaN scores (never
            // produced by the decoder) take the original comparison on a stable sort, as before.
            if d.contains(where: { $0.score.isNaN }) {
                return d.indices.sorted { a, b in
                    let x = d[a], y = d[b]
                    return x.score != y.score ? x.score > y.score : (x.classIndex, x.head, x.cell, x.anchor) < (y.classIndex, y.head, y.cell, y.anchor)
                }
            }
            var keys = d.indices.map { i -> (key: UInt32, index: Int) in (descendingKey(d[i].score), i) }
            keys.sort { a, b in
                if a.key != b.key { return a.key < b.key }
                let x = d[a.index], y = d[b.index]
                return (x.classIndex, x.head, x.cell, x.anchor, a.index) < (y.classIndex, y.head, y.cell, y.anchor, b.index)
            }
            return keys.map(\.index)
        }
    }

    /// A UInt32 that orders like -score for non-NaN floats (with -0 and +0 equal, as == has them).
    @inline(__always)
    static func descendingKey(_ score: Float) -> UInt32 {
        let s = score == 0 ? 0 : score  // -0 -> +0
        let bits = s.bitPattern
        let ascending = bits & 0x8000_0000 != 0 ? ~bits : bits | 0x8000_0000
        return ~ascending
    }

    /// Cell range covered by [low, high] (one axis) in a grid of `cells` (a power of two, `scale` the same
    /// as a Float): floor(cells * edge) clamped to 0...cells-1, the whole range when an edge is NaN.
    @inline(__always)
    static func cellRange(_ low: Float, _ high: Float, cells: Int, scale: Float) -> (Int32, Int32) {
        let a = (low * scale).rounded(.down), b = (high * scale).rounded(.down)
        if a.isNaN || b.isNaN { return (0, Int32(cells - 1)) }
        func clamp(_ v: Float) -> Int32 { v <= 0 ? 0 : (v >= scale - 1 ? Int32(cells - 1) : Int32(v)) }
        let ca = clamp(a), cb = clamp(b)
        return (min(ca, cb), max(ca, cb))
    }

    /// The grid level (0 = finest) in which the cell range low...high spans at most two cells.
    @inline(__always)
    static func level(_ low: Int32, _ high: Int32) -> Int32 {
        var s: Int32 = 0
        while (high >> s) - (low >> s) > 1 { s += 1 }
        return s
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

    /// One worker's index of the kept boxes of one class; its buffers are reused from class to class.
    final class ClassIndex {
        struct Kept {
            var x0, x1, y0, y1: Int32
            /// The last candidate (number within the class) that looked at this box.
            var stamp: Int32
            /// The next kept box stored in the same grid, -1 at the end.
            var nextInGrid: Int32 = -1
        }
        struct Entry {
            var kept: Int32
            /// Next entry of the same cell, -1 at the end.
            var next: Int32
        }

        /// Cells per axis of the finest grid, and the number of grid sizes per axis (fine, fine/2, ..., 1).
        let fine: Int
        let levels: Int
        /// Grid g = sx * levels + sy has fine >> sx columns and fine >> sy rows; its cells' list heads
        /// start at `offset[g]` in `heads` (-1: empty list).
        private var offset: [Int] = []
        private let heads: UnsafeMutablePointer<Int32>
        private let headCount: Int
        private var gridCount: [Int]
        /// Per grid: the last kept box stored in it (-1: none), the start of a list through `Kept.nextInGrid`.
        private var gridFirst: [Int32]
        private var capacity = 0
        private var keptBoxes = UnsafeMutablePointer<Detection>.allocate(capacity: 1)
        private var kept = UnsafeMutablePointer<Kept>.allocate(capacity: 1)
        private var entries = UnsafeMutablePointer<Entry>.allocate(capacity: 1)
        private var keptCount = 0, entryCount = 0

        /// For each level, all levels ordered by distance from it (itself, one finer, one coarser, ...).
        private let nearestFirst: [[Int]]

        init(fine: Int) {
            self.fine = fine
            var levels = 1
            while fine >> levels > 0 { levels += 1 }
            self.levels = levels
            nearestFirst = (0..<levels).map { own in (0..<levels).sorted { (abs($0 - own), $0) < (abs($1 - own), $1) } }
            var total = 0
            for sx in 0..<levels { for sy in 0..<levels { offset.append(total); total += (fine >> sx) * (fine >> sy) } }
            headCount = total
            heads = .allocate(capacity: total)
            heads.initialize(repeating: -1, count: total)
            gridCount = [Int](repeating: 0, count: levels * levels)
            gridFirst = [Int32](repeating: -1, count: levels * levels)
        }

        deinit {
            heads.deallocate()
            keptBoxes.deallocate()
            kept.deallocate()
            entries.deallocate()
        }

        /// Greedy NMS of one class's `boxes`, in sorted order. Sets `keptFlags[i]` when box i survives.
        func suppress(boxes: UnsafeBufferPointer<Detection>, iouThreshold: Float, keptFlags: UnsafeMutableBufferPointer<Bool>) {
            reset(capacity: boxes.count)
            let scale = Float(fine)
            for (number, candidate) in boxes.enumerated() {
                let (x0, x1) = GreedyNMS.cellRange(candidate.x - candidate.width / 2, candidate.x + candidate.width / 2, cells: fine, scale: scale)
                let (y0, y1) = GreedyNMS.cellRange(candidate.y - candidate.height / 2, candidate.y + candidate.height / 2, cells: fine, scale: scale)
                let mark = Int32(truncatingIfNeeded: number)
                var suppressed = false
                // Grids nearest the candidate's own size first: a box that suppresses it has a similar size,
                // so a suppressed candidate stops early (which grid is searched first does not change the result).
                let ownX = Int(GreedyNMS.level(x0, x1)), ownY = Int(GreedyNMS.level(y0, y1))
                search: for sx in nearestFirst[ownX] {
                    let gx0 = Int(x0) >> sx, gx1 = Int(x1) >> sx, columns = fine >> sx
                    for sy in nearestFirst[ownY] where gridCount[sx * levels + sy] > 0 {
                        let g = sx * levels + sy
                        let gy0 = Int(y0) >> sy, gy1 = Int(y1) >> sy
                        if (gy1 - gy0 + 1) * (gx1 - gx0 + 1) > gridCount[g] {
                            // A candidate covering more cells than the grid holds boxes: read its boxes once each.
                            var k = Int(gridFirst[g])
                            while k >= 0 {
                                let r = kept[k]
                                if !(r.x0 > x1 || x0 > r.x1 || r.y0 > y1 || y0 > r.y1) && keptBoxes[k].iou(candidate) > iouThreshold {
                                    suppressed = true
                                    break search
                                }
                                k = Int(r.nextInGrid)
                            }
                            continue
                        }
                        let cells = heads + offset[g]
                        for gy in gy0...gy1 {
                            for gx in gx0...gx1 {
                                var entry = cells[gy * columns + gx]
                                while entry >= 0 {
                                    let k = Int(entries[Int(entry)].kept)
                                    entry = entries[Int(entry)].next
                                    if kept[k].stamp == mark { continue }
                                    kept[k].stamp = mark
                                    let r = kept[k]
                                    if r.x0 > x1 || x0 > r.x1 || r.y0 > y1 || y0 > r.y1 { continue }
                                    if keptBoxes[k].iou(candidate) > iouThreshold {
                                        suppressed = true
                                        break search
                                    }
                                }
                            }
                        }
                    }
                }
                if suppressed { continue }
                keptFlags[number] = true
                insert(candidate, range: Kept(x0: x0, x1: x1, y0: y0, y1: y1, stamp: -1))
            }
        }

        private func insert(_ box: Detection, range: Kept) {
            let k = Int32(keptCount)
            let sx = Int(GreedyNMS.level(range.x0, range.x1)), sy = Int(GreedyNMS.level(range.y0, range.y1))
            let g = sx * levels + sy, columns = fine >> sx
            (keptBoxes + keptCount).initialize(to: box)
            kept[keptCount] = range
            kept[keptCount].nextInGrid = gridFirst[g]
            gridFirst[g] = k
            keptCount += 1
            let cells = heads + offset[g]
            gridCount[g] += 1
            for gy in (Int(range.y0) >> sy)...(Int(range.y1) >> sy) {
                for gx in (Int(range.x0) >> sx)...(Int(range.x1) >> sx) {
                    let cell = gy * columns + gx
                    entries[entryCount] = Entry(kept: k, next: cells[cell])
                    cells[cell] = Int32(entryCount)
                    entryCount += 1
                }
            }
        }

        /// Empties the index and makes room for a class of `members` boxes (each kept box takes at most
        /// four entries).
        private func reset(capacity needed: Int) {
            for g in 0..<(levels * levels) where gridCount[g] > 0 {
                let columns = fine >> (g / levels), rows = fine >> (g % levels)
                (heads + offset[g]).update(repeating: -1, count: columns * rows)
                gridCount[g] = 0
                gridFirst[g] = -1
            }
            keptBoxes.deinitialize(count: keptCount)
            keptCount = 0
            entryCount = 0
            if needed > capacity {
                keptBoxes.deallocate()
                kept.deallocate()
                entries.deallocate()
                capacity = needed
                keptBoxes = .allocate(capacity: needed)
                kept = .allocate(capacity: needed)
                entries = .allocate(capacity: 4 * needed)
            }
        }
    }
}
