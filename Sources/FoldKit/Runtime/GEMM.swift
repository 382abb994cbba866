#if canImport(Accelerate)
import Accelerate
#else
import CBLAS
#endif

/// Matrix products through cblas: OpenBLAS (module `CBLAS`) on Linux, Accelerate on Apple platforms.
/// Every call holds `BLASWorkerThreads.gate` (see there). All matrices are row-major; dimensions must fit in 32 bits (checked by the callers' shapes:
/// a layer's accumulation length and plane size are far below 2^31).
extension Float {
    public static func gemm(
        transposeA: Bool, transposeB: Bool, m: Int, n: Int, k: Int, alpha: Float,
        a: UnsafePointer<Float>, lda: Int, b: UnsafePointer<Float>, ldb: Int,
        beta: Float, c: UnsafeMutablePointer<Float>, ldc: Int
    ) {
        BLASWorkerThreads.call {
            cblas_sgemm(
                CblasRowMajor, transposeA ? CblasTrans : CblasNoTrans, transposeB ? CblasTrans : CblasNoTrans,
                Int32(m), Int32(n), Int32(k), alpha, a, Int32(lda), b, Int32(ldb), beta, c, Int32(ldc))
        }
    }
}

extension Double {
    public static func gemm(
        transposeA: Bool, transposeB: Bool, m: Int, n: Int, k: Int, alpha: Double,
        a: UnsafePointer<Double>, lda: Int, b: UnsafePointer<Double>, ldb: Int,
        beta: Double, c: UnsafeMutablePointer<Double>, ldc: Int
    ) {
        BLASWorkerThreads.call {
            cblas_dgemm(
                CblasRowMajor, transposeA ? CblasTrans : CblasNoTrans, transposeB ? CblasTrans : CblasNoTrans,
                Int32(m), Int32(n), Int32(k), alpha, a, Int32(lda), b, Int32(ldb), beta, c, Int32(ldc))
        }
    }
}
