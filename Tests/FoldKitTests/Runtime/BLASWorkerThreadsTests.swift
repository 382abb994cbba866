import FoldKit
import XCTest

/// Stopping OpenBLAS's idle workers (what `convert` does first) must not change later BLAS calls:
/// the pool restarts on the next threaded call and gives the same product, bit for bit.
final class BLASWorkerThreadsTests: XCTestCase {
    func testProductsAfterStoppingTheWorkersAreUnchanged() {
        let (m, n, k) = (192, 160, 144)  // large enough for OpenBLAS to split the work over threads
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
}
