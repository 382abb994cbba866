#if canImport(Accelerate)
    import Accelerate
#else
    import CBLAS
#endif

/// Matrix products through cblas: OpenBLAS (module `CBLAS`) on Linux, Accelerate on Apple platforms.
/// A product is one BLAS call, threaded as the program has set the BLAS up, unless the caller asks for it
/// to be split across cores (`ProductThreading.splitAcrossCores`, for a BLAS running on one thread): then
/// `GEMMPartition` cuts it into one single-threaded call per core. Nothing here changes the BLAS's own
/// settings.
/// All matrices are row-major; dimensions must fit in 32 bits (checked by the callers' shapes:
/// a layer's accumulation length and plane size are far below 2^31).
extension ExecutorScalar {
    /// Row-major C = alpha * op(A) * op(B) + beta * C, where op(A) is m x k and op(B) is k x n:
    /// `cblas_sgemm` for Float, `cblas_dgemm` for Double (the branch on the type folds away in the
    /// executor's specialised code). Any other conforming type gets the same sums from a plain loop,
    /// C[i, j] = alpha * sum_p op(A)[i, p] * op(B)[p, j] + beta * C[i, j] (C not read when beta is 0).
    ///
    /// `splitAcrossCores`: cut the product into one BLAS call per core (`GEMMPartition`); the BLAS should
    /// then run on one thread (`ProductThreading.splitAcrossCores`). Products too small to pay for it run whole.
    ///
    /// `finishPart(rows, columns)`, when given, is called once for every block of C as soon as that block is
    /// computed, on the thread that computed it (concurrently for the parts of a split product), with the
    /// block's rows and columns of C: a caller finishes each block (bias, activation) while it is in cache and
    /// on every core, instead of in a pass of its own over C afterwards.
    package static func gemm(
        transposeA: Bool, transposeB: Bool, m: Int, n: Int, k: Int, alpha: Self,
        a: UnsafePointer<Self>, lda: Int, b: UnsafePointer<Self>, ldb: Int,
        beta: Self, c: UnsafeMutablePointer<Self>, ldc: Int, splitAcrossCores: Bool,
        finishPart: ((_ rows: Range<Int>, _ columns: Range<Int>) -> Void)? = nil
    ) {
        let part = { (aOffset: Int, bOffset: Int, cOffset: Int, rows: Int, columns: Int) in
            let opA = transposeA ? CblasTrans : CblasNoTrans, opB = transposeB ? CblasTrans : CblasNoTrans
            if Self.self == Float.self {
                cblas_sgemm(
                    CblasRowMajor, opA, opB, Int32(rows), Int32(columns), Int32(k), Float(alpha),
                    UnsafeRawPointer(a + aOffset).assumingMemoryBound(to: Float.self), Int32(lda),
                    UnsafeRawPointer(b + bOffset).assumingMemoryBound(to: Float.self), Int32(ldb),
                    Float(beta), UnsafeMutableRawPointer(c + cOffset).assumingMemoryBound(to: Float.self), Int32(ldc))
            } else if Self.self == Double.self {
                cblas_dgemm(
                    CblasRowMajor, opA, opB, Int32(rows), Int32(columns), Int32(k), Double(alpha),
                    UnsafeRawPointer(a + aOffset).assumingMemoryBound(to: Double.self), Int32(lda),
                    UnsafeRawPointer(b + bOffset).assumingMemoryBound(to: Double.self), Int32(ldb),
                    Double(beta), UnsafeMutableRawPointer(c + cOffset).assumingMemoryBound(to: Double.self), Int32(ldc))
            } else {
                for i in 0..<rows {
                    for j in 0..<columns {
                        var sum: Self = 0
                        for p in 0..<k {
                            let left = transposeA ? a[aOffset + p * lda + i] : a[aOffset + i * lda + p]
                            let right = transposeB ? b[bOffset + j * ldb + p] : b[bOffset + p * ldb + j]
                            sum += left * right
                        }
                        let element = c + cOffset + i * ldc + j
                        element.pointee = beta == 0 ? alpha * sum : alpha * sum + beta * element.pointee
                    }
                }
            }
            if let finishPart {
                // A part starts at C[i0, j0] = c + i0 * ldc + j0 with j0 < ldc (GEMMPartition.run).
                let rowStart = cOffset / ldc, columnStart = cOffset % ldc
                finishPart(rowStart..<(rowStart + rows), columnStart..<(columnStart + columns))
            }
        }
        if splitAcrossCores, let split = GEMMPartition.split(m: m, n: n, k: k, workers: Parallel.workerCount) {
            split.run(m: m, n: n, transposeA: transposeA, transposeB: transposeB, lda: lda, ldb: ldb, ldc: ldc, part)
        } else {
            part(0, 0, 0, m, n)
        }
    }
}
