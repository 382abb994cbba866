import Foundation
import XCTest

@testable import FoldKit

/// `gemm` for a scalar type other than Float and Double (here Float16, conformed below for this test
/// only) takes the plain loop instead of cblas: its sums must be the product's, for every transposition,
/// wide leading dimensions, beta 0 and 1, and a product large enough to be split across cores
/// (64 x 80 x 64, split in two by `GEMMPartition` when there are several).
final class GEMMTests: XCTestCase {
    func testOtherScalarTypesGetTheProductFromThePlainLoop() throws {
        #if os(macOS) && arch(x86_64)
            throw XCTSkip("no Float16 on Intel Macs")
        #else
            // Small integers: every sum (|sum| <= 2 * 2 * 64 + 2) is exact in Float16, so equality is expected.
            for (m, n, k) in [(3, 5, 4), (64, 80, 64)] {
                for transposeA in [false, true] {
                    for transposeB in [false, true] {
                        let lda = (transposeA ? m : k) + 3, ldb = (transposeB ? k : n) + 2, ldc = n + 1
                        let a = (0..<((transposeA ? k : m) * lda)).map { Double(($0 * 7) % 5 - 2) }
                        let b = (0..<((transposeB ? n : k) * ldb)).map { Double(($0 * 11) % 5 - 2) }
                        let c0 = (0..<(m * ldc)).map { Double($0 % 3 - 1) }
                        for beta in [0.0, 1.0] {
                            var expected = c0
                            for i in 0..<m {
                                for j in 0..<n {
                                    var sum = 0.0
                                    for p in 0..<k {
                                        sum += (transposeA ? a[p * lda + i] : a[i * lda + p]) * (transposeB ? b[j * ldb + p] : b[p * ldb + j])
                                    }
                                    expected[i * ldc + j] = sum + beta * c0[i * ldc + j]
                                }
                            }
                            var c = c0.map { Float16($0) }
                            Float16.gemm(
                                transposeA: transposeA, transposeB: transposeB, m: m, n: n, k: k, alpha: 1,
                                a: a.map { Float16($0) }, lda: lda, b: b.map { Float16($0) }, ldb: ldb,
                                beta: Float16(beta), c: &c, ldc: ldc, splitAcrossCores: false)
                            XCTAssertEqual(
                                c.map(Double.init), expected, "\(m)x\(n)x\(k) transposeA \(transposeA) transposeB \(transposeB) beta \(beta)")
                        }
                    }
                }
            }
        #endif
    }
}

#if !(os(macOS) && arch(x86_64))
    extension Float16: ExecutorScalar {
        public static func exponential(_ x: Float16) -> Float16 { Float16(Foundation.exp(Float(x))) }
        public static func logOnePlus(_ x: Float16) -> Float16 { Float16(Foundation.log1p(Float(x))) }
        public static func hyperbolicTangent(_ x: Float16) -> Float16 { Float16(Foundation.tanh(Float(x))) }
        public static func errorFunction(_ x: Float16) -> Float16 { Float16(Foundation.erf(Float(x))) }
        public func roundedToHalf() -> Float16 { self }
    }
#endif
