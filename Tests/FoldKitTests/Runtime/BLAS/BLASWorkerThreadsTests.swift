@testable import FoldKit
import Foundation
import XCTest

/// Stopping OpenBLAS's idle workers (what `convert` does first) must not change later BLAS calls:
/// the pool restarts on the next threaded call and gives the same product, bit for bit.
final class BLASWorkerThreadsTests: XCTestCase {
    func testProductsAfterStoppingTheWorkersAreUnchanged() {
        let (m, n, k) = (192, 160, 144)  // large enough to be split over threads (by FoldKit or OpenBLAS)
        let a = (0..<(m * k)).map { Float(($0 * 7919) % 101) / 50 - 1 }
        let b = (0..<(k * n)).map { Float(($0 * 104_729) % 97) / 48 - 1 }
        func product() -> [Float] {
            var c = [Float](repeating: 0, count: m * n)
            Float.gemm(transposeA: false, transposeB: false, m: m, n: n, k: k, alpha: 1,
                       a: a, lda: k, b: b, ldb: n, beta: 0, c: &c, ldc: n)
            return c
        }
        let before = product()
        BLASWorkerThreads.stopIdleWorkers()
        BLASWorkerThreads.stopIdleWorkers()  // a second stop (no pool running) does nothing
        let after = product()
        XCTAssertEqual(before, after)
        // And the product is right: a few entries against a float64 reference.
        for (row, col) in [(0, 0), (m - 1, n - 1), (17, 93)] {
            var sum = 0.0
            for p in 0..<k { sum += Double(a[row * k + p]) * Double(b[p * n + col]) }
            XCTAssertEqual(Double(after[row * n + col]), sum, accuracy: 1e-3)
        }
    }

    /// Stopping the workers from one thread while another runs products (a library user verifying on one
    /// thread and running an executor on another) must leave every product intact: a stop waits for no
    /// product and never ends the pool under one (`BLASWorkerThreads.gate`).
    func testStoppingWhileAnotherThreadMultipliesLeavesProductsIntact() {
        let (m, n, k) = (256, 256, 256)
        let a = (0..<(m * k)).map { Float(($0 * 31) % 53) / 26 - 1 }
        let b = (0..<(k * n)).map { Float(($0 * 17) % 59) / 29 - 1 }
        @Sendable func product() -> [Float] {
            var c = [Float](repeating: 0, count: m * n)
            Float.gemm(transposeA: false, transposeB: false, m: m, n: n, k: k, alpha: 1,
                       a: a, lda: k, b: b, ldb: n, beta: 0, c: &c, ldc: n)
            return c
        }
        let expected = product()
        let done = DispatchSemaphore(value: 0), stopperDone = DispatchSemaphore(value: 0)
        let results = ResultBox()
        Thread.detachNewThread {
            for _ in 0..<40 { results.append(product()) }
            results.finish()
            done.signal()
        }
        // The stopper runs on a thread of its own: without the gate a stop under a running product
        // deadlocks in OpenBLAS, and the test then fails on the timeout below instead of hanging.
        Thread.detachNewThread {
            while !results.finished {
                BLASWorkerThreads.stopIdleWorkers()
                results.countStop()
            }
            stopperDone.signal()
        }
        guard done.wait(timeout: .now() + 60) == .success, stopperDone.wait(timeout: .now() + 10) == .success else {
            return XCTFail("products or stops did not finish within 60 s: stopping the workers under a product deadlocked")
        }
        XCTAssertGreaterThan(results.stops, 0)
        XCTAssertEqual(results.count, 40)
        XCTAssertTrue(results.all { $0 == expected }, "a product computed while the workers were being stopped differs")
    }
}

/// Products collected on another thread.
private final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [[Float]] = []
    private var isFinished = false
    private var stopCount = 0
    func append(_ value: [Float]) { lock.lock(); values.append(value); lock.unlock() }
    func finish() { lock.lock(); isFinished = true; lock.unlock() }
    var finished: Bool { lock.lock(); defer { lock.unlock() }; return isFinished }
    func countStop() { lock.lock(); stopCount += 1; lock.unlock() }
    var stops: Int { lock.lock(); defer { lock.unlock() }; return stopCount }
    var count: Int { lock.lock(); defer { lock.unlock() }; return values.count }
    func all(_ predicate: ([Float]) -> Bool) -> Bool { lock.lock(); defer { lock.unlock() }; return values.allSatisfy(predicate) }
}
