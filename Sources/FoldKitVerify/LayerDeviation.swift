import FoldKitCore
import FoldKitRuntime

/// How far one layer's candidate output is from the reference output (the statistics; the verdict on
/// them is `LayerVerdict`'s).
///
/// - `maxAbsDeviation` = max_i |candidate_i - reference_i| (output units); mean, median and p99 beside it
/// - `relativeDeviation` = maxAbsDeviation / max_i |reference_i|: the deviation as a fraction of the
///   layer's largest reference value (0 when both are 0). It is also the smallest `--rtol` (with
///   `--atol 0`) under which this layer would pass.
public struct LayerDeviation: Codable, Equatable, Sendable {
    /// Where the largest deviation is: channel, row, column of the C x H x W output.
    public struct Location: Codable, Equatable, Sendable {
        /// Channel.
        public var channel: Int
        /// Row.
        public var y: Int
        /// Column.
        public var x: Int
    }

    /// max_i |reference_i|.
    public var maxAbsReference: Double
    /// max_i |candidate_i - reference_i|, output units.
    public var maxAbsDeviation: Double
    /// maxAbsDeviation / maxAbsReference (0 when both are 0).
    public var relativeDeviation: Double
    /// The mean |candidate_i - reference_i|.
    public var meanAbsDeviation: Double
    /// The median |candidate_i - reference_i| (nearest rank).
    public var medianAbsDeviation: Double
    /// The 99th percentile of |candidate_i - reference_i| (nearest rank).
    public var p99AbsDeviation: Double
    /// Where the largest deviation is.
    public var at: Location

    /// Compares `candidate` against `reference` element by element (NaN or infinity in either where the
    /// other is finite counts as an infinite deviation). Median and p99 are exact order statistics
    /// (nearest rank, as a sort would give), found by `RadixHistogram` without copying the deviations.
    ///
    /// Large layers are split across the cores in contiguous ranges of whole blocks of `sumBlock` elements;
    /// every statistic but the mean is order-free (the largest deviation keeps the first index on ties).
    /// The mean is (sum over blocks, in index order, of the block's sum) / n, a block's sum being four lane sums
    /// (lane j adds elements j, j + 4, ... of the block in index order) added as ((l0 + l1) + l2) + l3: fixed
    /// block boundaries and a fixed order, so the same number on any core count and either build of the passes.
    @_specialize(where R == Double, C == Float)
    @_specialize(where R == Float, C == Float)
    @_specialize(where R == Double, C == Double)
    public static func measure<R: BinaryFloatingPoint & Sendable, C: BinaryFloatingPoint & Sendable>(
        layer: Layer, reference: [R], candidate: [C]
    ) -> LayerDeviation {
        measure(layer: layer, reference: reference, candidate: candidate, control: nil).deviation
    }

    /// `measure(layer:reference:candidate:)` and `ControlDeviation.measure(reference:control:maxAbsReference:)`
    /// in one pass over the reference: the same numbers as the two calls when the three outputs have the same
    /// length (a candidate or control of another length counts as an infinite deviation either way).
    @_specialize(where R == Double, C == Float)
    @_specialize(where R == Double, C == Double)
    public static func measure<R: BinaryFloatingPoint & Sendable, C: BinaryFloatingPoint & Sendable>(
        layer: Layer, reference: [R], candidate: [C], control: [C]
    ) -> (deviation: LayerDeviation, control: ControlDeviation) {
        let (deviation, controlDeviation) = measure(layer: layer, reference: reference, candidate: candidate, control: Optional(control))
        return (deviation, controlDeviation ?? ControlDeviation(maxAbsDeviation: .infinity, relativeDeviation: .infinity))
    }

    private static func measure<R: BinaryFloatingPoint & Sendable, C: BinaryFloatingPoint & Sendable>(
        layer: Layer, reference: [R], candidate: [C], control: [C]?
    ) -> (deviation: LayerDeviation, control: ControlDeviation?) {
        // The passes read a float64 reference and Float or Double outputs; other types are converted (exactly).
        guard R.self == Double.self, ChunkStatistics.scans(C.self) else {
            return measure(
                layer: layer, reference: reference.map(Double.init), candidate: candidate.map(Double.init),
                control: control?.map(Double.init))
        }
        let reference = unsafeBitCast(reference, to: [Double].self)
        let shape = layer.outputShape
        // With a control run, n covers all three (a shorter one shows as an infinite deviation below).
        let n = min(reference.count, candidate.count, control?.count ?? .max)
        var maxRef = 0.0, maxDev = 0.0, sumDev = 0.0, worst = 0, maxControlDev = 0.0
        let medianRank = Quantile.rank(0.5, count: n), p99Rank = Quantile.rank(0.99, count: n)
        var median = 0.0, p99 = 0.0
        reference.withUnsafeBufferPointer { ref in
            candidate.withUnsafeBufferPointer { cand in
                (control ?? []).withUnsafeBufferPointer { ctl in
                    let ctl: UnsafeBufferPointer<C>? = control == nil ? nil : ctl
                    guard n > 0 else { return }
                    let blocks = (n + sumBlock - 1) / sumBlock
                    let chunks = n >= Parallel.minimumParallelWork ? min(Parallel.workerCount, blocks) : 1
                    @inline(__always) func elements(ofChunk chunk: Int) -> Range<Int> {
                        (min(n, blocks * chunk / chunks * sumBlock))..<(min(n, blocks * (chunk + 1) / chunks * sumBlock))
                    }
                    // Pass 1: per chunk, a histogram, max|reference|, the largest deviation and the block sums.
                    var partials = [ChunkStatistics](repeating: ChunkStatistics(), count: chunks)
                    var blockSums = [Double](repeating: 0, count: blocks)
                    partials.withUnsafeMutableBufferPointer { partials in
                        blockSums.withUnsafeMutableBufferPointer { blockSums in
                            let results = partials, sums = blockSums
                            Parallel.forEach(chunks, totalWork: n) { chunk in
                                results[chunk] = ChunkStatistics.scan(ref, cand, control: ctl, elements: elements(ofChunk: chunk), blockSums: sums)
                            }
                        }
                    }
                    var histogram = partials[0].histogram
                    for p in partials {
                        maxRef = max(maxRef, p.maxRef)
                        maxControlDev = max(maxControlDev, p.maxControlDev)
                        if p.maxDev > maxDev { maxDev = p.maxDev; worst = p.worst }
                    }
                    if maxDev == 0 { worst = 0 }
                    for p in partials.dropFirst() { histogram.add(p.histogram) }
                    for s in blockSums { sumDev += s }
                    let medianBucket = histogram.locate(rank: medianRank), p99Bucket = histogram.locate(rank: p99Rank)
                    // Pass 2: the deviations in the buckets holding the two ranks (their order does not matter to selection).
                    let bucketCounts = partials.map { (Int($0.histogram.counts[medianBucket.bucket]), Int($0.histogram.counts[p99Bucket.bucket])) }
                    var gathered = [(first: [Double], second: [Double])](repeating: ([], []), count: chunks)
                    gathered.withUnsafeMutableBufferPointer { gathered in
                        let results = gathered
                        Parallel.forEach(chunks, totalWork: n) { chunk in
                            results[chunk] = ChunkStatistics.gather(
                                ref, cand, elements: elements(ofChunk: chunk), buckets: (medianBucket.bucket, p99Bucket.bucket),
                                counts: bucketCounts[chunk])
                        }
                    }
                    var medianValues = gathered.flatMap(\.first)
                    var p99Values = p99Bucket.bucket == medianBucket.bucket ? medianValues : gathered.flatMap(\.second)
                    median = Quantile.select(&medianValues, rank: medianRank - medianBucket.below)
                    p99 = Quantile.select(&p99Values, rank: p99Rank - p99Bucket.below)
                }
            }
        }
        if reference.count != candidate.count { maxDev = .infinity }
        if let control, reference.count != control.count { maxControlDev = .infinity }
        let plane = max(shape.height * shape.width, 1)
        let deviation = LayerDeviation(
            maxAbsReference: maxRef, maxAbsDeviation: maxDev, relativeDeviation: relative(maxDev, of: maxRef),
            meanAbsDeviation: n > 0 ? sumDev / Double(n) : 0, medianAbsDeviation: median, p99AbsDeviation: p99,
            at: Location(channel: worst / plane, y: (worst % plane) / max(shape.width, 1), x: worst % max(shape.width, 1)))
        return (
            deviation, control.map { _ in ControlDeviation(maxAbsDeviation: maxControlDev, relativeDeviation: relative(maxControlDev, of: maxRef)) }
        )
    }

    /// deviation / max |reference|: 0 when both are 0, infinite when only the reference is.
    private static func relative(_ deviation: Double, of maxReference: Double) -> Double {
        maxReference > 0 ? deviation / maxReference : (deviation == 0 ? 0 : .infinity)
    }

    /// Elements per partial sum of the mean (see `measure`).
    package static let sumBlock = 1 << 14
}

/// |candidate - reference| for one element: NaN or infinity in either where the other is finite is an
/// infinite deviation; equal non-finite values (both +inf, say) are none.
@inline(__always)
func elementDeviation(_ r: Double, _ c: Double) -> Double {
    (r.isFinite && c.isFinite) ? abs(c - r) : (r == c ? 0 : .infinity)
}
