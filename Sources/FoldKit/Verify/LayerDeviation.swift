import FoldKitCore

/// How far one layer's candidate output is from the reference output.
///
/// - `maxAbsDeviation` = max_i |candidate_i - reference_i| (output units); mean, median and p99 beside it
/// - `relativeDeviation` = maxAbsDeviation / max_i |reference_i|: the deviation as a fraction of the
///   layer's largest reference value (0 when both are 0). It is also the smallest `--rtol` (with
///   `--atol 0`) under which this layer would pass.
/// - `allowed` = atol + relativeTolerance * max|reference|; the layer passes when maxAbsDeviation <= allowed.
///   `relativeTolerance` is either the user's `--rtol` or the derived budget (see `ToleranceBudget`).
public struct LayerDeviation: Codable, Equatable, Sendable {
    /// Where the largest deviation is: channel, row, column of the C x H x W output.
    public struct Location: Codable, Equatable, Sendable {
        public var channel: Int
        public var y: Int
        public var x: Int
    }

    public var index: Int
    public var name: String
    public var type: String
    /// [C, H, W]
    public var shape: [Int]
    public var maxAbsReference: Double
    public var maxAbsDeviation: Double
    public var relativeDeviation: Double
    public var meanAbsDeviation: Double
    public var medianAbsDeviation: Double
    public var p99AbsDeviation: Double
    public var at: Location
    /// The relative tolerance applied to this layer (user's --rtol or the derived budget).
    public var relativeTolerance: Double
    public var allowed: Double
    public var pass: Bool

    /// Compares `candidate` against `reference` element by element (NaN or infinity in either where the
    /// other is finite counts as an infinite deviation). Median and p99 are exact order statistics
    /// (nearest rank, as a sort would give), found by `RadixHistogram` without copying the deviations.
    @_specialize(where R == Double, C == Float)
    @_specialize(where R == Float, C == Float)
    @_specialize(where R == Double, C == Double)
    public static func measure<R: BinaryFloatingPoint, C: BinaryFloatingPoint>(
        layer: Layer, reference: [R], candidate: [C], atol: Double, rtol: Double
    ) -> LayerDeviation {
        let shape = layer.outputShape
        let n = min(reference.count, candidate.count)
        var maxRef = 0.0, maxDev = 0.0, sumDev = 0.0, worst = 0
        let medianRank = Quantile.rank(0.5, count: n), p99Rank = Quantile.rank(0.99, count: n)
        var median = 0.0, p99 = 0.0
        reference.withUnsafeBufferPointer { ref in
            candidate.withUnsafeBufferPointer { cand in
                @inline(__always) func deviation(_ i: Int) -> Double {
                    let r = Double(ref[i]), c = Double(cand[i])
                    return (r.isFinite && c.isFinite) ? abs(c - r) : (r == c ? 0 : .infinity)
                }
                var histogram = RadixHistogram()
                histogram.withCounts { counts in
                    for i in 0..<n {
                        let r = Double(ref[i])
                        let d = deviation(i)
                        if r.isFinite { maxRef = max(maxRef, abs(r)) }
                        sumDev += d
                        if d > maxDev { maxDev = d; worst = i }
                        counts[RadixHistogram.bucket(d)] &+= 1
                    }
                }
                guard n > 0 else { return }
                let medianBucket = histogram.locate(rank: medianRank), p99Bucket = histogram.locate(rank: p99Rank)
                var medianValues: [Double] = [], p99Values: [Double] = []
                for i in 0..<n {
                    let d = deviation(i)
                    let b = RadixHistogram.bucket(d)
                    if b == medianBucket.bucket { medianValues.append(d) } else if b == p99Bucket.bucket { p99Values.append(d) }
                }
                if p99Bucket.bucket == medianBucket.bucket { p99Values = medianValues }
                median = Quantile.select(&medianValues, rank: medianRank - medianBucket.below)
                p99 = Quantile.select(&p99Values, rank: p99Rank - p99Bucket.below)
            }
        }
        if reference.count != candidate.count { maxDev = .infinity }
        let plane = max(shape.height * shape.width, 1)
        let allowed = atol + rtol * maxRef
        return LayerDeviation(
            index: layer.index, name: layer.name, type: layer.kind.typeName,
            shape: [shape.channels, shape.height, shape.width], maxAbsReference: maxRef, maxAbsDeviation: maxDev,
            relativeDeviation: maxRef > 0 ? maxDev / maxRef : (maxDev == 0 ? 0 : .infinity),
            meanAbsDeviation: n > 0 ? sumDev / Double(n) : 0, medianAbsDeviation: median, p99AbsDeviation: p99,
            at: Location(channel: worst / plane, y: (worst % plane) / max(shape.width, 1), x: worst % max(shape.width, 1)),
            relativeTolerance: rtol, allowed: allowed, pass: maxDev <= allowed)
    }
}

/// A per-layer maximum deviation, for the separate fold / float16 storage breakdown.
public struct DeviationSummary: Codable, Equatable, Sendable {
    public var index: Int
    public var maxAbsDeviation: Double
    public var relativeDeviation: Double

    public init(_ d: LayerDeviation) {
        index = d.index
        maxAbsDeviation = d.maxAbsDeviation
        relativeDeviation = d.relativeDeviation
    }
}
