import FoldKit
import Foundation
import XCTest

/// After `MallocReuse.keepFreedMemory`, a big block freed and allocated again comes back without page faults
/// (glibc's default maps blocks this big with their own mmap: 12 288 fresh pages on every allocation).
final class MallocReuseTests: XCTestCase {
    func testFreedBigBlocksAreReusedWithoutPageFaults() throws {
        #if os(Linux)
        XCTAssertTrue(MallocReuse.keepFreedMemory(), "glibc should accept both thresholds")
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
}
