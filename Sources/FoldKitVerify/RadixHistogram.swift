/// Exact order statistics of non-negative doubles (+infinity included) in two streaming passes, with no
/// copy of the values: radix selection on the IEEE-754 bit pattern.
///
/// For non-negative doubles the bit pattern, read as an unsigned integer, orders like the values. Pass 1
/// counts the values per bucket = bits 62...47 of the pattern (11 exponent bits and the top 5 mantissa
/// bits: 65,536 buckets, each a 1/32 slice of one binade). The cumulative counts name the bucket that holds
/// rank k and how many values lie in lower buckets. Pass 2 gathers that bucket's values (a small fraction
/// of the layer unless the values are nearly all equal) and quickselect finds rank k - below among them.
/// The result is the element a full sort would put at rank k.
struct RadixHistogram {
    static let bucketCount = 1 << 16
    private(set) var counts = [UInt32](repeating: 0, count: RadixHistogram.bucketCount)

    @inline(__always)
    static func bucket(_ value: Double) -> Int { Int(truncatingIfNeeded: value.bitPattern >> 47) & (bucketCount - 1) }

    /// Counts in place through `body`, which receives the bucket array (for tight loops).
    mutating func withCounts<T>(_ body: (UnsafeMutableBufferPointer<UInt32>) -> T) -> T {
        counts.withUnsafeMutableBufferPointer { body($0) }
    }

    /// Adds another histogram's counts to this one (for histograms of disjoint parts of the values).
    mutating func add(_ other: RadixHistogram) {
        counts.withUnsafeMutableBufferPointer { mine in
            other.counts.withUnsafeBufferPointer { theirs in
                for b in 0..<RadixHistogram.bucketCount { mine[b] &+= theirs[b] }
            }
        }
    }

    /// The bucket holding the value of rank `rank` (0-based, ascending), and how many values lie in lower buckets.
    func locate(rank: Int) -> (bucket: Int, below: Int) {
        var below = 0
        for b in 0..<RadixHistogram.bucketCount {
            let c = Int(counts[b])
            if rank < below + c { return (b, below) }
            below += c
        }
        return (RadixHistogram.bucketCount - 1, below)
    }
}
