import CDeviationScan
import FoldKitCore

/// Pass 1 and pass 2 of `LayerDeviation.measure` over one chunk of elements, run by CDeviationScan's
/// vectorised loops. The reference is float64; the candidate and the control are Float or Double (other
/// types are converted to Double by `LayerDeviation` first). Per element, d_i = `elementDeviation(r_i, c_i)`.
struct ChunkStatistics {
    var maxRef = 0.0, maxDev = 0.0, worst = 0
    /// max |control - reference| over the chunk, when `scan` was given a control run (else 0).
    var maxControlDev = 0.0
    var histogram = RadixHistogram()

    /// Whether the AVX2 build of the passes runs on this CPU.
    static var usesAVX2: Bool { cds_uses_avx2() != 0 }

    /// Runs `body` with the baseline build forced (for tests comparing both builds).
    static func withBaselineBuild<T>(_ body: () throws -> T) rethrows -> T {
        cds_force_baseline(1)
        defer { cds_force_baseline(0) }
        return try body()
    }

    /// Whether the candidate type has a vectorised pass (Float and Double).
    static func scans<C: BinaryFloatingPoint>(_ type: C.Type) -> Bool { type == Float.self || type == Double.self }

    /// Histogram, max|reference|, the first largest deviation, and each `LayerDeviation.sumBlock` block's sum
    /// into `blockSums[i / sumBlock]`: four lane sums (lane j adds the block's elements j, j + 4, ... in index
    /// order), added as ((lane 0 + lane 1) + lane 2) + lane 3. `elements` starts on a block boundary. With
    /// `control`, also the control run's largest deviation (`ControlDeviation`) in the same pass.
    static func scan<C: BinaryFloatingPoint>(
        _ ref: UnsafeBufferPointer<Double>, _ cand: UnsafeBufferPointer<C>, control: UnsafeBufferPointer<C>? = nil, elements: Range<Int>,
        blockSums: UnsafeMutableBufferPointer<Double>
    ) -> ChunkStatistics {
        var s = ChunkStatistics()
        var summary = cds_scan_summary()
        let (candidate, controlRun) = (UnsafeRawPointer(cand.baseAddress), control.flatMap { UnsafeRawPointer($0.baseAddress) })
        s.histogram.withCounts { counts in
            if C.self == Float.self {
                cds_scan_f32(
                    ref.baseAddress, candidate?.assumingMemoryBound(to: Float.self), controlRun?.assumingMemoryBound(to: Float.self),
                    elements.lowerBound, elements.upperBound, LayerDeviation.sumBlock, counts.baseAddress, blockSums.baseAddress, &summary)
            } else {
                precondition(C.self == Double.self, "ChunkStatistics scans Float or Double candidates")
                cds_scan_f64(
                    ref.baseAddress, candidate?.assumingMemoryBound(to: Double.self), controlRun?.assumingMemoryBound(to: Double.self),
                    elements.lowerBound, elements.upperBound, LayerDeviation.sumBlock, counts.baseAddress, blockSums.baseAddress, &summary)
            }
        }
        s.maxRef = summary.maxReference
        s.maxDev = summary.maxDeviation
        s.worst = summary.worst
        s.maxControlDev = summary.maxControlDeviation
        return s
    }

    /// The deviations of `elements` that fall in the first bucket, and those in the second (when different),
    /// each in index order. `counts` are this chunk's histogram counts of the two buckets (from `scan`): the
    /// arrays are that long, the C pass writes no further, and finding more is a broken invariant.
    static func gather<C: BinaryFloatingPoint>(
        _ ref: UnsafeBufferPointer<Double>, _ cand: UnsafeBufferPointer<C>, elements: Range<Int>, buckets: (Int, Int), counts: (Int, Int)
    ) -> (first: [Double], second: [Double]) {
        let secondCapacity = buckets.1 == buckets.0 ? 0 : counts.1
        var firstFound = 0, secondFound = 0
        var second: [Double] = []
        let first = [Double](unsafeUninitializedCapacity: counts.0) { firstValues, firstCount in
            second = [Double](unsafeUninitializedCapacity: secondCapacity) { secondValues, secondCount in
                let candidate = UnsafeRawPointer(cand.baseAddress)
                if C.self == Float.self {
                    cds_gather_f32(
                        ref.baseAddress, candidate?.assumingMemoryBound(to: Float.self), elements.lowerBound, elements.upperBound,
                        Int32(buckets.0), Int32(buckets.1), firstValues.baseAddress, firstValues.count, &firstFound,
                        secondValues.baseAddress, secondValues.count, &secondFound)
                } else {
                    precondition(C.self == Double.self, "ChunkStatistics gathers from Float or Double candidates")
                    cds_gather_f64(
                        ref.baseAddress, candidate?.assumingMemoryBound(to: Double.self), elements.lowerBound, elements.upperBound,
                        Int32(buckets.0), Int32(buckets.1), firstValues.baseAddress, firstValues.count, &firstFound,
                        secondValues.baseAddress, secondValues.count, &secondFound)
                }
                precondition(secondFound <= secondCapacity, "pass 2 found more values than pass 1 counted")
                secondCount = secondFound
            }
            precondition(firstFound <= counts.0, "pass 2 found more values than pass 1 counted")
            firstCount = firstFound
        }
        return (first, second)
    }
}
