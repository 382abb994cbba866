/// The kept boxes of one class during greedy NMS (`GreedyNMS`), indexed so that a candidate meets only
/// kept boxes near it; reused from class to class by one worker.
///
/// Layout: a hierarchy of grids over [0, 1]^2, F >> sx columns by F >> sy rows for every pair of levels
/// sx, sy in 0...log2(F) (F = `fine`: 128, or the rule's 32 for negative thresholds). A kept box is stored
/// in the finest grid (smallest sx, then sy) in which its cell range spans at most two columns and two
/// rows, so in at most four cells: a small box in the fine grid, a wide thin box in a grid with few
/// columns and many rows, a box covering the image in the 1 x 1 grid.
///
/// A candidate visits every non-empty grid (those nearest its own size first, so that a suppressed
/// candidate stops early), in each the cells its range covers, or the grid's boxes one by one when they
/// are fewer than those cells. A stamp per kept box skips boxes already met for this candidate, and the
/// F-grid cell ranges are compared before the IoU.
struct KeptBoxIndex {
    /// A box's cells in the F x F grid: columns x0...x1, rows y0...y1.
    struct Cells {
        var x0, x1, y0, y1: Int32

        /// The range of the box (normalised coordinates) in a grid of `cells` per axis: floor(cells * edge)
        /// clamped to 0...cells-1; the whole range when an edge is NaN.
        init(_ box: Detection, cells: Int) {
            (x0, x1) = Cells.axis(box.x - box.width / 2, box.x + box.width / 2, cells: cells)
            (y0, y1) = Cells.axis(box.y - box.height / 2, box.y + box.height / 2, cells: cells)
        }

        func overlaps(_ other: Cells) -> Bool { !(other.x0 > x1 || x0 > other.x1 || other.y0 > y1 || y0 > other.y1) }

        /// The grid level per axis (0 = finest) in which the range spans at most two cells.
        var level: (x: Int, y: Int) { (Cells.level(x0, x1), Cells.level(y0, y1)) }

        private static func axis(_ low: Float, _ high: Float, cells: Int) -> (Int32, Int32) {
            let scale = Float(cells)
            let a = (low * scale).rounded(.down), b = (high * scale).rounded(.down)
            if a.isNaN || b.isNaN { return (0, Int32(cells - 1)) }
            func clamp(_ v: Float) -> Int32 { v <= 0 ? 0 : (v >= scale - 1 ? Int32(cells - 1) : Int32(v)) }
            return (min(clamp(a), clamp(b)), max(clamp(a), clamp(b)))
        }

        private static func level(_ low: Int32, _ high: Int32) -> Int {
            var s: Int32 = 0
            while (high >> s) - (low >> s) > 1 { s += 1 }
            return Int(s)
        }
    }

    /// A kept box's cells and list links (its `Detection` is in `keptBoxes`, apart, so that the
    /// frequently read fields stay compact).
    private struct Kept {
        var cells: Cells
        /// The last candidate (number within the class) that met this box.
        var stamp: Int32
        /// The next kept box stored in the same grid, -1 at the end.
        var nextInGrid: Int32
    }

    /// One kept box in one cell's list.
    private struct Entry {
        var kept: Int32
        /// The next entry of the same cell, -1 at the end.
        var next: Int32
    }

    /// Cells per axis of the finest grid, and the number of grid sizes per axis (fine, fine/2, ..., 1).
    let fine: Int
    let levels: Int
    /// Grid g = sx * levels + sy: its cells' list heads start at `gridStart[g]` in `cellHeads` (-1: empty).
    private let gridStart: [Int]
    private var cellHeads: [Int32]
    /// Per grid: the number of kept boxes stored in it, and the first of them (a list through `nextInGrid`).
    private var gridCount: [Int]
    private var gridFirst: [Int32]
    private var kept: [Kept] = []
    private var keptBoxes: [Detection] = []
    private var entries: [Entry] = []
    /// For each level, all levels ordered by distance from it (itself, one finer, one coarser, ...).
    private let nearestFirst: [[Int]]

    init(fine: Int) {
        self.fine = fine
        var levels = 1
        while fine >> levels > 0 { levels += 1 }
        self.levels = levels
        nearestFirst = (0..<levels).map { own in (0..<levels).sorted { (abs($0 - own), $0) < (abs($1 - own), $1) } }
        var starts: [Int] = [], total = 0
        for sx in 0..<levels { for sy in 0..<levels { starts.append(total); total += (fine >> sx) * (fine >> sy) } }
        gridStart = starts
        cellHeads = [Int32](repeating: -1, count: total)
        gridCount = [Int](repeating: 0, count: levels * levels)
        gridFirst = [Int32](repeating: -1, count: levels * levels)
    }

    /// Greedy NMS of one class's `boxes`, given in sorted order: which of them are kept.
    mutating func suppress(_ boxes: ArraySlice<Detection>, iouThreshold: Float) -> [Bool] {
        reset(capacity: boxes.count)
        var keptFlags = [Bool](repeating: false, count: boxes.count)
        for (number, candidate) in boxes.enumerated() {
            let cells = Cells(candidate, cells: fine)
            if isSuppressed(candidate, cells: cells, mark: Int32(truncatingIfNeeded: number), iouThreshold: iouThreshold) { continue }
            keptFlags[number] = true
            insert(candidate, cells: cells)
        }
        return keptFlags
    }

    /// Whether a kept box near `candidate` has IoU > `iouThreshold` with it. Grids nearest the candidate's
    /// own size first: a box that suppresses it has a similar size (the search order does not change the
    /// answer, only how soon it is found).
    private mutating func isSuppressed(_ candidate: Detection, cells: Cells, mark: Int32, iouThreshold: Float) -> Bool {
        let own = cells.level
        for sx in nearestFirst[own.x] {
            for sy in nearestFirst[own.y] where gridCount[sx * levels + sy] > 0 {
                let g = sx * levels + sy
                let columns = (Int(cells.x1) >> sx) - (Int(cells.x0) >> sx) + 1, rows = (Int(cells.y1) >> sy) - (Int(cells.y0) >> sy) + 1
                let found =
                    columns * rows > gridCount[g]
                    ? anyInGridList(g, suppresses: candidate, cells: cells, iouThreshold: iouThreshold)
                    : anyInCells(g, sx: sx, sy: sy, suppresses: candidate, cells: cells, mark: mark, iouThreshold: iouThreshold)
                if found { return true }
            }
        }
        return false
    }

    /// Reads grid g's kept boxes one by one (for a candidate covering more of its cells than it holds boxes).
    private func anyInGridList(_ g: Int, suppresses candidate: Detection, cells: Cells, iouThreshold: Float) -> Bool {
        var k = Int(gridFirst[g])
        while k >= 0 {
            if kept[k].cells.overlaps(cells) && keptBoxes[k].iou(candidate) > iouThreshold { return true }
            k = Int(kept[k].nextInGrid)
        }
        return false
    }

    /// Reads the lists of grid g's cells that the candidate covers, each kept box at most once.
    private mutating func anyInCells(
        _ g: Int, sx: Int, sy: Int, suppresses candidate: Detection, cells: Cells, mark: Int32,
        iouThreshold: Float
    ) -> Bool {
        let columns = fine >> sx, start = gridStart[g]
        for gy in (Int(cells.y0) >> sy)...(Int(cells.y1) >> sy) {
            for gx in (Int(cells.x0) >> sx)...(Int(cells.x1) >> sx) {
                var entry = Int(cellHeads[start + gy * columns + gx])
                while entry >= 0 {
                    let k = Int(entries[entry].kept)
                    entry = Int(entries[entry].next)
                    if kept[k].stamp == mark { continue }
                    kept[k].stamp = mark
                    if kept[k].cells.overlaps(cells) && keptBoxes[k].iou(candidate) > iouThreshold { return true }
                }
            }
        }
        return false
    }

    /// Stores a newly kept box in the finest grid where it covers at most two columns and two rows.
    private mutating func insert(_ box: Detection, cells: Cells) {
        let (sx, sy) = cells.level
        let g = sx * levels + sy, columns = fine >> sx, start = gridStart[g]
        let k = Int32(kept.count)
        kept.append(Kept(cells: cells, stamp: -1, nextInGrid: gridFirst[g]))
        keptBoxes.append(box)
        gridFirst[g] = k
        gridCount[g] += 1
        for gy in (Int(cells.y0) >> sy)...(Int(cells.y1) >> sy) {
            for gx in (Int(cells.x0) >> sx)...(Int(cells.x1) >> sx) {
                entries.append(Entry(kept: k, next: cellHeads[start + gy * columns + gx]))
                cellHeads[start + gy * columns + gx] = Int32(entries.count - 1)
            }
        }
    }

    /// Empties the index (only the grids in use are cleared) and makes room for a class of `members` boxes
    /// (each kept box takes at most four entries).
    private mutating func reset(capacity members: Int) {
        for g in 0..<(levels * levels) where gridCount[g] > 0 {
            let cellCount = (fine >> (g / levels)) * (fine >> (g % levels))
            for cell in gridStart[g]..<(gridStart[g] + cellCount) { cellHeads[cell] = -1 }
            gridCount[g] = 0
            gridFirst[g] = -1
        }
        kept.removeAll(keepingCapacity: true)
        keptBoxes.removeAll(keepingCapacity: true)
        keptBoxes.reserveCapacity(members)
        entries.removeAll(keepingCapacity: true)
        kept.reserveCapacity(members)
        entries.reserveCapacity(4 * members)
    }
}
