import Foundation

/// IEEE-754 binary16 through Swift's `Float16`, in one place: the type does not exist on Intel Macs
/// (`os(macOS) && arch(x86_64)`), the one platform FoldKit builds on without it.
///
/// Where it exists, `rounded(x)` is `x` rounded to the nearest binary16 value (round to nearest even,
/// directly from `x`'s own precision, so a `Double` is not rounded to `Float` first) and given back in `x`'s
/// type. On an Intel Mac `isAvailable` is false, `Executor` refuses `ExecutorOptions.float16Storage` up front,
/// and `rounded(x)` is `x` unchanged, never reached by a run that asked for half precision. `bits(x)` is the
/// rounded value's binary16 bit pattern (float16 blobs); on an Intel Mac `BlobWriter` refuses float16 blobs
/// up front and `bits` is never reached.
package enum HalfPrecision {
    /// The largest finite binary16 value, 65504: a finite value past it would round to infinity.
    package static let largestFinite: Float = 65504

    #if os(macOS) && arch(x86_64)
        package static let isAvailable = false
        @inline(__always) package static func rounded(_ x: Float) -> Float { x }
        @inline(__always) package static func rounded(_ x: Double) -> Double { x }
        package static func bits(_ x: Float) -> UInt16 { preconditionFailure("float16 blobs need Swift's Float16, which Intel Macs lack") }
    #else
        package static let isAvailable = true
        @inline(__always) package static func rounded(_ x: Float) -> Float { Float(Float16(x)) }
        @inline(__always) package static func rounded(_ x: Double) -> Double { Double(Float16(x)) }
        @inline(__always) package static func bits(_ x: Float) -> UInt16 { Float16(x).bitPattern }
    #endif
}
