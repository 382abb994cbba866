import FoldKitCore

/// Pass 1 and pass 2 of `LayerDeviation.measure` over one chunk of elements.
struct ChunkStatistics {
    var maxRef = 0.0, maxDev = 0.0, worst = 0
    /// max |control - reference| over the chunk, when `scan` was given a control run (else 0).
    var maxControlDev = 0.0
    var histogram = RadixHistogram()

    /// Histogram, max|reference|, the first largest deviation, and the sum of each `LayerDeviation.sumBlock`
    /// block (in index order) into `blockSums[i / sumBlock]`; `elements` starts on a block boundary. With
    /// `control`, also the control run's largest deviation (`ControlDeviation`) in the same pass over the
    /// reference.
    @_specialize(where R == Double, C == Float)
    @_specialize(where R == Float, C == Float)
    @_specialize(where R == Double, C == Double)
    static func scan<R: BinaryFloatingPoint, C: BinaryFloatingPoint>(
        _ ref: UnsafeBufferPointer<R>, _ cand: UnsafeBufferPointer<C>, control: UnsafeBufferPointer<C>? = nil, elements: Range<Int>,
        blockSums: UnsafeMutableBufferPointer<Double>
    ) -> ChunkStatistics {
        var s = ChunkStatistics()
        var maxRef = 0.0, maxDev = 0.0, worst = elements.lowerBound, maxControlDev = 0.0
        let block = LayerDeviation.sumBlock
        s.histogram.withCounts { counts in
            var start = elements.lowerBound
            while start < elements.upperBound {
                let end = min(start + block, elements.upperBound)
                var sum = 0.0
                for i in start..<end {
                    let r = Double(ref[i])
                    let d = elementDeviation(r, Double(cand[i]))
                    if r.isFinite { maxRef = max(maxRef, abs(r)) }
                    sum += d
                    if d > maxDev { maxDev = d; worst = i }
                    counts[RadixHistogram.bucket(d)] &+= 1
                    if let control { maxControlDev = max(maxControlDev, elementDeviation(r, Double(control[i]))) }
                }
                blockSums[start / block] = sum
                start = end
            }
        }
        s.maxRef = maxRef
        s.maxDev = maxDev
        s.worst = worst
        s.maxControlDev = maxControlDev
        return s
    }

    /// The deviations of `elements` that fall in the first bucket, and those in the second (when different).
    @_specialize(where R == Double, C == Float)
    @_specialize(where R == Float, C == Float)
    @_specialize(where R == Double, C == Double)
    static func gather<R: BinaryFloatingPoint, C: BinaryFloatingPoint>(
        _ ref: UnsafeBufferPointer<R>, _ cand: UnsafeBufferPointer<C>, elements: Range<Int>, buckets: (Int, Int)
    ) -> (first: [Double], second: [Double]) {
        var first: [Double] = [], second: [Double] = []
        for i in elements {
            let d = elementDeviation(Double(ref[i]), Double(cand[i]))
            let b = RadixHistogram.bucket(d)
            if b == buckets.0 { first.append(d) } else if b == buckets.1 { second.append(d) }
        }
        return (first, second)
    }
}
