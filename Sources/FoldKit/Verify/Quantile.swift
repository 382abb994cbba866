/// Order statistics without sorting: quickselect (Hoare partition, median-of-three pivot), O(n) on average.
enum Quantile {
    /// The element that would be at `rank` (0-based) if `values` were sorted ascending. Reorders `values`.
    static func select(_ values: inout [Double], rank: Int) -> Double {
        guard !values.isEmpty else { return 0 }
        var low = 0, high = values.count - 1
        let k = min(max(rank, 0), values.count - 1)
        return values.withUnsafeMutableBufferPointer { v in
            while low < high {
                let mid = low + (high - low) / 2
                // Median of three as pivot.
                if v[mid] < v[low] { v.swapAt(mid, low) }
                if v[high] < v[low] { v.swapAt(high, low) }
                if v[high] < v[mid] { v.swapAt(high, mid) }
                let pivot = v[mid]
                var i = low, j = high
                while i <= j {
                    while v[i] < pivot { i += 1 }
                    while v[j] > pivot { j -= 1 }
                    if i <= j { v.swapAt(i, j); i += 1; j -= 1 }
                }
                if k <= j { high = j } else if k >= i { low = i } else { return v[k] }
            }
            return v[k]
        }
    }

    /// The nearest-rank rule on n values: the q-quantile (0...1) is the element of rank round(q * (n - 1)).
    static func rank(_ q: Double, count: Int) -> Int {
        Int((q * Double(max(count - 1, 0))).rounded())
    }

    /// The q-quantile (0...1) by the nearest-rank rule on n values: rank round(q * (n - 1)).
    static func quantile(_ values: inout [Double], _ q: Double) -> Double {
        select(&values, rank: rank(q, count: values.count))
    }
}

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
