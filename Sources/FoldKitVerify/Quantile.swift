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
