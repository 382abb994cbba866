import FoldKitBlobFormat
import FoldKitCore

/// float32 to IEEE 754 binary16 for float16 blobs: Swift's `Float16(x)` conversion (`HalfPrecision.bits`),
/// round to nearest even, little-endian bits. A finite value past `HalfFloat.largestFinite` (65504) is
/// reported, not written as infinity; NaN and infinity stay NaN and infinity (the writer's non-finite check
/// names them). Swift has no `Float16` on Intel Macs, where `isAvailable` is false and `foldkit convert
/// --dtype float16` refuses (Docs/Architecture.md, "Platform branches").
package enum HalfConversion {
    /// Whether float16 blobs can be written on this platform.
    static var isAvailable: Bool { HalfPrecision.isAvailable }

    /// A value past the float16 range: its index in the converted run and the value.
    struct Overflow: Equatable, Sendable {
        var index: Int
        var value: Float
    }

    /// Rewrites `buffer`'s float32 values as binary16 bits in its first 2 * count bytes (value i at byte
    /// 2i: each write lands on bytes of values already read); returns the first finite value whose
    /// magnitude exceeds 65504, if any.
    static func convertInPlace(_ buffer: UnsafeMutableBufferPointer<Float>) -> Overflow? {
        guard let base = buffer.baseAddress else { return nil }
        let raw = UnsafeMutableRawPointer(base)
        var overflow: Overflow?
        for i in 0..<buffer.count {
            let x = raw.load(fromByteOffset: 4 * i, as: Float.self)
            if overflow == nil && x.isFinite && abs(x) > HalfFloat.largestFinite { overflow = Overflow(index: i, value: x) }
            raw.storeBytes(of: bits(x).littleEndian, toByteOffset: 2 * i, as: UInt16.self)
        }
        return overflow
    }

    /// The binary16 bits of `x` rounded to nearest even.
    @inline(__always)
    package static func bits(_ x: Float) -> UInt16 { HalfPrecision.bits(x) }
}
