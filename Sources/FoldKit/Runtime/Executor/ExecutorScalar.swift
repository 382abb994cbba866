import Foundation

/// The element type an `Executor` computes in: `Double` (the float64 reference) or `Float` (what a device runs).
///
/// Besides arithmetic it provides the elementary functions the activations need, a matrix product
/// through cblas (`GEMM.swift`), and rounding to IEEE half precision for `ExecutorOptions.float16Storage`.
public protocol ExecutorScalar: BinaryFloatingPoint, SIMDScalar, Sendable {
    /// e^x
    static func exponential(_ x: Self) -> Self
    /// ln(1 + x)
    static func logOnePlus(_ x: Self) -> Self
    /// tanh(x)
    static func hyperbolicTangent(_ x: Self) -> Self
    /// The nearest IEEE-754 binary16 value (round to nearest even), as `Self`.
    func roundedToHalf() -> Self
    /// Row-major C = alpha * op(A) * op(B) + beta * C, where op(A) is m x k and op(B) is k x n; split across
    /// cores unless `splitAcrossCores` is false (see `GEMM.swift`).
    static func gemm(
        transposeA: Bool, transposeB: Bool, m: Int, n: Int, k: Int, alpha: Self,
        a: UnsafePointer<Self>, lda: Int, b: UnsafePointer<Self>, ldb: Int,
        beta: Self, c: UnsafeMutablePointer<Self>, ldc: Int, splitAcrossCores: Bool)
}

/// Whether Swift's `Float16` exists on this platform (not on Intel Macs).
enum HalfPrecision {
    #if os(macOS) && arch(x86_64)
    static let isAvailable = false
    #else
    static let isAvailable = true
    #endif
}

extension Float: ExecutorScalar {
    @inline(__always) public static func exponential(_ x: Float) -> Float { Foundation.exp(x) }
    @inline(__always) public static func logOnePlus(_ x: Float) -> Float { Foundation.log1p(x) }
    @inline(__always) public static func hyperbolicTangent(_ x: Float) -> Float { Foundation.tanh(x) }
    @inline(__always) public func roundedToHalf() -> Float {
        #if os(macOS) && arch(x86_64)
        return self
        #else
        return Float(Float16(self))
        #endif
    }
}

extension Double: ExecutorScalar {
    @inline(__always) public static func exponential(_ x: Double) -> Double { Foundation.exp(x) }
    @inline(__always) public static func logOnePlus(_ x: Double) -> Double { Foundation.log1p(x) }
    @inline(__always) public static func hyperbolicTangent(_ x: Double) -> Double { Foundation.tanh(x) }
    @inline(__always) public func roundedToHalf() -> Double {
        #if os(macOS) && arch(x86_64)
        return self
        #else
        return Double(Float16(self))
        #endif
    }
}

extension ExecutorScalar {
    /// `gemm` split across cores (the usual call).
    @inline(__always)
    static func gemm(
        transposeA: Bool, transposeB: Bool, m: Int, n: Int, k: Int, alpha: Self,
        a: UnsafePointer<Self>, lda: Int, b: UnsafePointer<Self>, ldb: Int,
        beta: Self, c: UnsafeMutablePointer<Self>, ldc: Int
    ) {
        gemm(transposeA: transposeA, transposeB: transposeB, m: m, n: n, k: k, alpha: alpha, a: a, lda: lda, b: b, ldb: ldb,
             beta: beta, c: c, ldc: ldc, splitAcrossCores: true)
    }
}
