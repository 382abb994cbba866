/// Keeps freed memory in the process for reuse instead of returning it to the system (glibc malloc);
/// switched on through `ProcessTuning.keepsFreedMemory`, which explains the trade-off.
///
/// By default glibc serves blocks above a dynamic threshold (at most 32 MiB) with a mapping of their own,
/// unmapped again on free, and trims the free top of the heap above another threshold, so every pass
/// faults fresh zero-filled pages in for most layer outputs. Raising both thresholds keeps such blocks in
/// the heap, where the next pass's allocations of the same sizes find them.
enum MallocReuse {
    /// `M_TRIM_THRESHOLD` of glibc's <malloc.h>, which the Glibc module does not import.
    static let trimThresholdParameter: Int32 = -1
    /// `M_MMAP_THRESHOLD` of <malloc.h>.
    static let mmapThresholdParameter: Int32 = -3

    /// Blocks up to 1 GiB come from the heap and are reused after they are freed. That is far above any
    /// single layer output or im2col buffer of the models FoldKit runs (yolov3 at 416x416: under 100 MB in
    /// float64), while a block larger still keeps a mapping of its own and goes back to the system when
    /// freed. Setting it also ends glibc's dynamic adjustment of the threshold.
    static let mmapThreshold: Int32 = 1 << 30
    /// Free memory at the top of the heap is returned to the system only above 2 GiB - 1, the largest
    /// value the parameter (a C int) holds: the heap is in effect never trimmed, so memory a pass freed is
    /// still mapped, and its pages still present, when the next pass allocates.
    static let trimThreshold: Int32 = .max

    /// Sets both thresholds with `mallopt`. Returns whether glibc accepted both (false where there is no
    /// `mallopt`, which then changes nothing).
    static func keepFreedMemory() -> Bool {
        guard let symbol = DynamicSymbol.address(of: "mallopt") else { return false }
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        let mmap = mallopt(mmapThresholdParameter, mmapThreshold)
        let trim = mallopt(trimThresholdParameter, trimThreshold)
        return mmap == 1 && trim == 1
    }
}
