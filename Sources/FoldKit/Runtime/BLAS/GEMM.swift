#if canImport(Accelerate)
import Accelerate
#else
import CBLAS
#endif

/// Matrix products through cblas: OpenBLAS (module `CBLAS`) on Linux, Accelerate on Apple platforms.
/// Every call holds `BLASWorkerThreads.gate` (see there). With OpenBLAS, the BLAS runs single-threaded
/// and each product is split across cores by `GEMMPartition` (unless `splitAcrossCores` is false: the
/// caller already runs one product per core); otherwise the library threads it.
/// All matrices are row-major; dimensions must fit in 32 bits (checked by the callers' shapes:
/// a layer's accumulation length and plane size are far below 2^31).
extension Float {
    public static func gemm(
        transposeA: Bool, transposeB: Bool, m: Int, n: Int, k: Int, alpha: Float,
        a: UnsafePointer<Float>, lda: Int, b: UnsafePointer<Float>, ldb: Int,
        beta: Float, c: UnsafeMutablePointer<Float>, ldc: Int, splitAcrossCores: Bool = true
    ) {
        BLASWorkerThreads.call(
            m: m, n: n, k: k, transposeA: transposeA, transposeB: transposeB, lda: lda, ldb: ldb, ldc: ldc, splitAcrossCores: splitAcrossCores
        ) {
            aOffset, bOffset, cOffset, rows, columns in
            cblas_sgemm(
                CblasRowMajor, transposeA ? CblasTrans : CblasNoTrans, transposeB ? CblasTrans : CblasNoTrans,
                Int32(rows), Int32(columns), Int32(k), alpha, a + aOffset, Int32(lda), b + bOffset, Int32(ldb),
                beta, c + cOffset, Int32(ldc))
        }
    }
}

extension Double {
    public static func gemm(
        transposeA: Bool, transposeB: Bool, m: Int, n: Int, k: Int, alpha: Double,
        a: UnsafePointer<Double>, lda: Int, b: UnsafePointer<Double>, ldb: Int,
        beta: Double, c: UnsafeMutablePointer<Double>, ldc: Int, splitAcrossCores: Bool = true
    ) {
        BLASWorkerThreads.call(
            m: m, n: n, k: k, transposeA: transposeA, transposeB: transposeB, lda: lda, ldb: ldb, ldc: ldc, splitAcrossCores: splitAcrossCores
        ) {
            aOffset, bOffset, cOffset, rows, columns in
            cblas_dgemm(
                CblasRowMajor, transposeA ? CblasTrans : CblasNoTrans, transposeB ? CblasTrans : CblasNoTrans,
                Int32(rows), Int32(columns), Int32(k), alpha, a + aOffset, Int32(lda), b + bOffset, Int32(ldb),
                beta, c + cOffset, Int32(ldc))
        }
    }
}
