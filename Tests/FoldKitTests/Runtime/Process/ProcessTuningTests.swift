@testable import FoldKit
import Foundation
import XCTest

/// What `ProcessTuning.apply()` changes in the process: malloc keeps freed blocks, and the idle-worker
/// hook `Parallel` calls stops OpenBLAS's workers only when that was applied.
final class ProcessTuningTests: XCTestCase {
    /// After applying `keepsFreedMemory`, a big block freed and allocated again comes back without page
    /// faults (glibc's default maps blocks this big with their own mmap: 12 288 fresh pages on every allocation).
    func testKeepingFreedMemoryReusesBigBlocksWithoutPageFaults() throws {
        #if os(Linux)
        if DynamicSymbol.address(of: "__asan_init") != nil { throw XCTSkip("AddressSanitizer replaces glibc malloc") }
        let applied = ProcessTuning(keepsFreedMemory: true).apply()
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

    /// The hook does nothing unless `stopsIdleBLASWorkers` was applied; once applied, it (and `apply()`
    /// itself) ends a pool that may be spinning; applying it off again turns the hook off.
    func testIdleWorkerStopsOnlyWhenApplied() throws {
        guard BLASWorkerThreads.canStopIdleWorkers else { throw XCTSkip("OpenBLAS only") }
        defer { ProcessTuning().apply() }
        ProcessTuning().apply()
        BLASWorkerThreads.mayBeSpinning = true  // as after a threaded product
        ProcessTuning.beforeParallelWork()
        XCTAssertTrue(BLASWorkerThreads.mayBeSpinning, "the hook stopped the workers without being applied")

        XCTAssertTrue(ProcessTuning(stopsIdleBLASWorkers: true).apply().stopsIdleBLASWorkers)
        XCTAssertFalse(BLASWorkerThreads.mayBeSpinning, "apply() did not stop the workers")
        BLASWorkerThreads.mayBeSpinning = true
        ProcessTuning.beforeParallelWork()
        XCTAssertFalse(BLASWorkerThreads.mayBeSpinning, "the applied hook did not stop the workers")

        ProcessTuning().apply()
        BLASWorkerThreads.mayBeSpinning = true
        ProcessTuning.beforeParallelWork()
        XCTAssertTrue(BLASWorkerThreads.mayBeSpinning, "applying the setting off left the hook on")
        BLASWorkerThreads.stopIdleWorkers()
    }

    /// With the stops applied, a loop `Parallel` splits across cores ends the workers first; a loop that
    /// stays on the calling thread does not.
    func testParallelLoopsCallTheHook() throws {
        guard BLASWorkerThreads.canStopIdleWorkers, Parallel.workerCount > 1 else { throw XCTSkip("OpenBLAS on several cores only") }
        ProcessTuning(stopsIdleBLASWorkers: true).apply()
        defer { ProcessTuning().apply() }
        BLASWorkerThreads.mayBeSpinning = true
        Parallel.forEach(4, totalWork: 1) { _ in }
        XCTAssertTrue(BLASWorkerThreads.mayBeSpinning, "a loop on the calling thread stopped the workers")
        Parallel.forRanges(4, totalWork: Parallel.minimumParallelWork) { _ in }
        XCTAssertFalse(BLASWorkerThreads.mayBeSpinning, "a loop split across cores did not stop the workers first")
    }
}
