import Foundation
import XCTest

@testable import FoldKit
@testable import FoldKitRuntime

/// What `ProcessTuning.apply()` changes in the process: malloc keeps freed blocks, and OpenBLAS runs on
/// one thread, each only when asked. Each test leaves the process's settings as it found them.
final class ProcessTuningTests: XCTestCase {
    /// After applying `keepsFreedMemory`, a big block freed and allocated again comes back without page
    /// faults (glibc's default maps blocks this big with their own mmap: 12 288 fresh pages on every allocation).
    func testKeepingFreedMemoryReusesBigBlocksWithoutPageFaults() throws {
        #if os(Linux)
            if DynamicSymbol.address(of: "__asan_init") != nil { throw XCTSkip("AddressSanitizer replaces glibc malloc") }
            let applied = ProcessTuning(keepsFreedMemory: true).apply()
            // glibc's starting values back afterwards (128 KiB each, DEFAULT_MMAP_THRESHOLD_MIN and
            // DEFAULT_TRIM_THRESHOLD in glibc's malloc.c); only its dynamic raising of the mmap threshold stays off.
            defer { Self.setMallocThresholds(mmap: 128 << 10, trim: 128 << 10) }
            XCTAssertTrue(applied.keepsFreedMemory, "glibc should accept both thresholds")
            let size = 48 << 20
            func touchFreshBlock() {
                let block = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
                for offset in stride(from: 0, to: size, by: 4096) { block[offset] = 1 }
                block.deallocate()
            }
            func minorFaults() -> Int {
                var usage = rusage()
                getrusage(RUSAGE_SELF.rawValue, &usage)  // XCTest runs one test at a time
                return usage.ru_minflt
            }
            touchFreshBlock()
            let before = minorFaults()
            touchFreshBlock()
            let faults = minorFaults() - before
            XCTAssertLessThan(faults, 1000, "the second 48 MiB block faulted \(faults) pages")
        #else
            throw XCTSkip("glibc malloc only")
        #endif
    }

    private static func setMallocThresholds(mmap: Int32, trim: Int32) {
        guard let symbol = DynamicSymbol.address(of: "mallopt") else { return }
        let mallopt = unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
        _ = mallopt(MallocReuse.mmapThresholdParameter, mmap)
        _ = mallopt(MallocReuse.trimThresholdParameter, trim)
    }

    /// `singleThreadedBLAS` sets OpenBLAS to one thread and says so (`productThreading` then splits products);
    /// a tuning without it leaves the thread count alone. The count is put back as found.
    func testSingleThreadedBLASSetsOneThreadOnlyWhenAsked() throws {
        guard let found = OpenBLASThreads.count else { throw XCTSkip("OpenBLAS only (Accelerate keeps its own threading)") }
        defer { OpenBLASThreads.setCount(found) }
        OpenBLASThreads.setCount(2)
        let untouched = ProcessTuning().apply()
        XCTAssertEqual(OpenBLASThreads.count, 2, "a tuning without singleThreadedBLAS changed OpenBLAS's threads")
        XCTAssertEqual(untouched.productThreading, .library)
        let applied = ProcessTuning(singleThreadedBLAS: true).apply()
        if Parallel.workerCount > 1 {
            XCTAssertTrue(applied.singleThreadedBLAS)
            XCTAssertEqual(OpenBLASThreads.count, 1)
            XCTAssertEqual(applied.productThreading, .splitAcrossCores)
        } else {
            XCTAssertFalse(applied.singleThreadedBLAS, "one core: nothing to split, nothing set")
            XCTAssertEqual(OpenBLASThreads.count, 2)
        }
    }
}
