/// Selection of the k-th smallest value without sorting everything (quickselect, expected O(n)).
enum OrderStatistic {
    /// Rearranges `values[range]` so that `values[rank]` holds the value a full ascending sort of the
    /// whole array would put there, everything before it in `range` is <= it and everything after is >=
    /// it; returns that value. `range` must contain `rank`, and every element outside `range` must
    /// already be on the correct side (<= before, >= after), as after an earlier select of a lower rank
    /// whose result starts `range`. Values must be totally ordered (no NaN).
    @discardableResult
    static func select(_ values: inout [Double], rank: Int, in range: Range<Int>) -> Double {
        guard range.contains(rank), range.upperBound <= values.count, range.lowerBound >= 0 else {
            guard values.indices.contains(rank) else { return 0 }
            values.sort()
            return values[rank]
        }
        var low = range.lowerBound, high = range.upperBound - 1
        values.withUnsafeMutableBufferPointer { v in
            while high > low {
                // Median of three as the pivot, then Hoare partitioning.
                let mid = low + (high - low) / 2
                if v[mid] < v[low] { v.swapAt(mid, low) }
                if v[high] < v[low] { v.swapAt(high, low) }
                if v[high] < v[mid] { v.swapAt(high, mid) }
                let pivot = v[mid]
                var i = low, j = high
                while i <= j {
                    while v[i] < pivot { i += 1 }
                    while v[j] > pivot { j -= 1 }
                    if i <= j {
                        v.swapAt(i, j)
                        i += 1
                        j -= 1
                    }
                }
                if rank <= j {
                    high = j
                } else if rank >= i {
                    low = i
                } else {
                    return
                }
            }
        }
        return values[rank]
    }
}
