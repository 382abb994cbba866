import XCTest

@testable import FoldKit
@testable import FoldKitRuntime

/// The split of one product across cores: parts cover the long side exactly, in aligned blocks, and the
/// split products (every transpose combination) equal a float64 reference.
final class GEMMPartitionTests: XCTestCase {
    func testSmallProductsAndOneWorkerAreNotSplit() {
        XCTAssertNil(GEMMPartition.split(m: 32, n: 64, k: 64, workers: 2))  // 2^17 multiply-adds
        XCTAssertNil(GEMMPartition.split(m: 1024, n: 1024, k: 64, workers: 1))
        // Too short to give each worker an aligned block.
        XCTAssertNil(GEMMPartition.split(m: 20, n: 31, k: 1 << 20, workers: 2))
        XCTAssertNil(GEMMPartition.split(m: 31, n: 8, k: 1 << 20, workers: 2))
    }

    func testTheLongerSideIsCutIntoAlignedBlocksCoveringIt() throws {
        let wide = try XCTUnwrap(GEMMPartition.split(m: 64, n: 43_264, k: 288, workers: 2))
        XCTAssertEqual(wide.axis, .columns)
        XCTAssertEqual(wide.ranges, [0..<21_632, 21_632..<43_264])
        let tall = try XCTUnwrap(GEMMPartition.split(m: 1024, n: 49, k: 512, workers: 2))
        XCTAssertEqual(tall.axis, .rows)
        XCTAssertEqual(tall.ranges, [0..<512, 512..<1024])
        for (m, n, workers) in [(37, 1000, 2), (300, 50, 3), (1000, 999, 4), (255, 169, 2), (33, 40_000, 8)] {
            let split = try XCTUnwrap(GEMMPartition.split(m: m, n: n, k: 64, workers: workers), "\(m)x\(n)")
            let length = split.axis == .columns ? n : m
            XCTAssertEqual(split.ranges.first?.lowerBound, 0)
            XCTAssertEqual(split.ranges.last?.upperBound, length)
            XCTAssertLessThanOrEqual(split.ranges.count, workers)
            XCTAssertGreaterThan(split.ranges.count, 1)
            for (before, after) in zip(split.ranges, split.ranges.dropFirst()) {
                XCTAssertEqual(before.upperBound, after.lowerBound)
                XCTAssertEqual(after.lowerBound % GEMMPartition.alignment, 0)
                XCTAssertFalse(before.isEmpty)
            }
        }
    }

    /// C = op(A) op(B) through `Float.gemm` / `Double.gemm`, whole and split across cores, for shapes
    /// cut by rows and by columns, all four transpose combinations, leading dimensions wider than the
    /// matrices, and beta = 1 (the parts must add to their own block of C only).
    func testSplitProductsMatchAReferenceForEveryTransposition() throws {
        for (m, n, k) in [(37, 1000, 20), (300, 50, 40), (130, 130, 33)] {
            XCTAssertNotNil(GEMMPartition.split(m: m, n: n, k: k, workers: 2), "\(m)x\(n)x\(k) should be split")
            for transposeA in [false, true] {
                for transposeB in [false, true] {
                    let lda = (transposeA ? m : k) + 3, ldb = (transposeB ? k : n) + 5, ldc = n + 2
                    let a = (0..<((transposeA ? k : m) * lda)).map { Double(($0 * 7919) % 101) / 50 - 1 }
                    let b = (0..<((transposeB ? n : k) * ldb)).map { Double(($0 * 104_729) % 97) / 48 - 1 }
                    let c0 = (0..<(m * ldc)).map { Double(($0 * 31) % 13) - 6 }
                    var expected = c0
                    for i in 0..<m {
                        for j in 0..<n {
                            var sum = 0.0
                            for p in 0..<k {
                                sum += a[transposeA ? p * lda + i : i * lda + p] * b[transposeB ? j * ldb + p : p * ldb + j]
                            }
                            expected[i * ldc + j] = 0.5 * sum + c0[i * ldc + j]
                        }
                    }
                    for split in [false, true] {
                        var double = c0
                        Double.gemm(
                            transposeA: transposeA, transposeB: transposeB, m: m, n: n, k: k, alpha: 0.5,
                            a: a, lda: lda, b: b, ldb: ldb, beta: 1, c: &double, ldc: ldc, splitAcrossCores: split)
                        var float = c0.map(Float.init)
                        Float.gemm(
                            transposeA: transposeA, transposeB: transposeB, m: m, n: n, k: k, alpha: 0.5,
                            a: a.map(Float.init), lda: lda, b: b.map(Float.init), ldb: ldb, beta: 1, c: &float, ldc: ldc,
                            splitAcrossCores: split)
                        let label = "\(m)x\(n)x\(k) transposeA \(transposeA) transposeB \(transposeB) split \(split)"
                        for index in expected.indices {
                            XCTAssertEqual(double[index], expected[index], accuracy: 1e-12, label)
                            XCTAssertEqual(Double(float[index]), expected[index], accuracy: 1e-4, label)
                            if abs(double[index] - expected[index]) > 1e-12 { return }
                        }
                    }
                }
            }
        }
    }
}
