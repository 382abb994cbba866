import Dispatch

/// How FoldKit splits one matrix product C (m x n) = op(A) (m x k) * op(B) (k x n) across cores itself
/// when the BLAS runs single-threaded (`ProductThreading.splitAcrossCores`).
///
/// The product is cut along one axis into `parts` contiguous blocks whose boundaries are multiples of
/// `alignment` (the kernels' register blocking), one block per core, each a separate single-threaded
/// BLAS call on the same thread pool as FoldKit's other loops:
/// - columns (n >= m): part p computes C[:, j0 ..< j1] = op(A) * op(B)[:, j0 ..< j1]; every part packs all of A;
/// - rows (m > n): part p computes C[i0 ..< i1, :] = op(A)[i0 ..< i1, :] * op(B); every part packs all of B.
/// Cutting the longer side keeps the operand every part re-reads the smaller one. Each element of C is
/// still one BLAS dot product over all of k, so the split changes no accumulation length.
/// Products under `minimumWork` multiply-adds run as one call.
struct GEMMPartition: Equatable {
    enum Axis: Equatable { case rows, columns }

    let axis: Axis
    /// Half-open ranges of rows (axis .rows) or columns (.columns), in order, covering 0..<m or 0..<n.
    let ranges: [Range<Int>]

    static let alignment = 16
    static let minimumWork = 1 << 18

    /// The split for an m x n x k product over `workers` cores; nil when it runs as one call.
    static func split(m: Int, n: Int, k: Int, workers: Int) -> GEMMPartition? {
        guard workers > 1, m * n * k >= minimumWork else { return nil }
        let axis: Axis = n >= m ? .columns : .rows
        let length = axis == .columns ? n : m
        let parts = min(workers, length / alignment)
        guard parts > 1 else { return nil }
        var ranges: [Range<Int>] = []
        var start = 0
        for part in 1...parts {
            let end = part == parts ? length : (length * part / parts + alignment / 2) / alignment * alignment
            if end > start { ranges.append(start..<end) }
            start = max(start, end)
        }
        return ranges.count > 1 ? GEMMPartition(axis: axis, ranges: ranges) : nil
    }

    /// Runs `block(aOffset, bOffset, cOffset, rows, columns)` for every part, concurrently: the offsets are
    /// in elements from the starts of A, B and C for row-major storage with leading dimensions lda, ldb, ldc
    /// (op(A) rows i0.. start at i0 * lda, or at i0 when A is transposed; op(B) columns j0.. at j0, or at
    /// j0 * ldb when B is transposed).
    func run(
        m: Int, n: Int, transposeA: Bool, transposeB: Bool, lda: Int, ldb: Int, ldc: Int,
        _ block: (_ aOffset: Int, _ bOffset: Int, _ cOffset: Int, _ rows: Int, _ columns: Int) -> Void
    ) {
        Parallel.fork(ranges.count) { part in
            let range = ranges[part]
            switch axis {
            case .columns:
                block(0, transposeB ? range.lowerBound * ldb : range.lowerBound, range.lowerBound, m, range.count)
            case .rows:
                block(transposeA ? range.lowerBound : range.lowerBound * lda, 0, range.lowerBound * ldc, range.count, n)
            }
        }
    }
}
