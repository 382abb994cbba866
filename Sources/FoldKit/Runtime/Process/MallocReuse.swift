#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// Keeps freed memory in the process for reuse instead of returning it to the system (glibc malloc).
///
/// By default glibc serves blocks above a dynamic threshold (at most 32 MiB) with their own mmap and trims
/// the heap's free top above another, so each forward pass got fresh, zero-filled pages for most layer
/// outputs: on yolov3 at 416, about 11 000 page faults per float32 pass and 27 000 per float64 pass in the
/// steady state (layer 4's 11 MB shortcut output alone: 2704 faults, 5.2 ms against about 1 ms for the
/// same-sized additions elsewhere). With both thresholds raised, the second and later passes fault no pages.
/// Memory freed by the process stays with it until it ends, so peak RSS can grow a little (fragments that
/// glibc would have returned). `foldkit bench` calls it (passes over and over, as an application runs frame
/// after frame), and so does `foldkit verify`, whose reference pass then reuses the memory the folded pass's
/// compared outputs freed (yolov3: about 85 000 of 237 000 page faults saved, 0-0.3 s of 1.9-2.8 s depending
/// on the host's load, for 16-110 MB more peak RSS). A library user running many passes should call it once
/// at start.
public enum MallocReuse {
    /// Raises glibc's mmap threshold to 1 GiB and its trim threshold to 2 GiB - 1. Returns whether glibc
    /// accepted both (false on other C libraries, where it does nothing).
    @discardableResult
    public static func keepFreedMemory() -> Bool {
        #if os(Linux)
        // mallopt and its parameters are in <malloc.h>, which the Glibc module does not import:
        // M_TRIM_THRESHOLD = -1, M_MMAP_THRESHOLD = -3 there.
        guard let symbol = dlsym(nil, "mallopt") else { return false }
        typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
        let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
        let mmap = mallopt(-3, 1 << 30)
        let trim = mallopt(-1, Int32.max)
        return mmap == 1 && trim == 1
        #else
        return false
        #endif
    }
}
