import FoldKitCore
import Foundation

/// The element type an `Executor` computes in: `Double` (the float64 reference) or `Float` (what a device runs).
///
/// Besides arithmetic it provides the elementary functions the activations need, a matrix product
/// through cblas (`gemm`, internal, in `GEMM.swift`), and rounding to IEEE half precision for `ExecutorOptions.float16Storage`.
///
/// `Decodable` and `Encodable` are stated, not only implied: `SIMDScalar` ties `Self` to its storage types'
/// `Scalar` (`SIMD2Storage.Scalar == Self`, ...), which `SIMDStorage` requires to be `Codable`, so every
/// conforming type is `Decodable & Encodable` anyway, and the compiler warns ("protocol 'ExecutorScalar'
/// should be declared to refine 'Decodable' due to a same-type constraint on 'Self'") when a protocol
/// leaves such a refinement implied. They are named one by one, as the warning names them.
public protocol ExecutorScalar: BinaryFloatingPoint, SIMDScalar, Sendable, Decodable, Encodable {
    /// e^x
    static func exponential(_ x: Self) -> Self
    /// ln(1 + x)
    static func logOnePlus(_ x: Self) -> Self
    /// tanh(x)
    static func hyperbolicTangent(_ x: Self) -> Self
    /// erf(x) = 2 / sqrt(pi) * integral from 0 to x of exp(-t^2) dt
    static func errorFunction(_ x: Self) -> Self
    /// The nearest IEEE-754 binary16 value (round to nearest even), as `Self`.
    func roundedToHalf() -> Self
}

extension Float: ExecutorScalar {
    /// e^x
    @inline(__always) public static func exponential(_ x: Float) -> Float { Foundation.exp(x) }
    /// ln(1 + x)
    @inline(__always) public static func logOnePlus(_ x: Float) -> Float { Foundation.log1p(x) }
    /// tanh(x)
    @inline(__always) public static func hyperbolicTangent(_ x: Float) -> Float { Foundation.tanh(x) }
    /// erf(x)
    @inline(__always) public static func errorFunction(_ x: Float) -> Float { Foundation.erf(x) }
    /// The nearest IEEE-754 binary16 value (round to nearest even).
    @inline(__always) public func roundedToHalf() -> Float { HalfPrecision.rounded(self) }
}

extension Double: ExecutorScalar {
    /// e^x
    @inline(__always) public static func exponential(_ x: Double) -> Double { Foundation.exp(x) }
    /// ln(1 + x)
    @inline(__always) public static func logOnePlus(_ x: Double) -> Double { Foundation.log1p(x) }
    /// tanh(x)
    @inline(__always) public static func hyperbolicTangent(_ x: Double) -> Double { Foundation.tanh(x) }
    /// erf(x)
    @inline(__always) public static func errorFunction(_ x: Double) -> Double { Foundation.erf(x) }
    /// The nearest IEEE-754 binary16 value (round to nearest even).
    @inline(__always) public func roundedToHalf() -> Double { HalfPrecision.rounded(self) }
}
