/// IEEE 754 binary16 (half precision) bit patterns read as float32, exactly and on every platform (Swift's
/// `Float16` type does not exist on Intel Macs): 1 sign bit s, 5 exponent bits e, 10 fraction bits f,
///
///     e = 0:        (-1)^s * 2^-14 * f / 1024        (zero and subnormals)
///     0 < e < 31:   (-1)^s * 2^(e - 15) * (1 + f / 1024)
///     e = 31:       infinity (f = 0) or NaN (f != 0, payload kept in the high fraction bits)
///
/// Every binary16 value is a float32 value, so the conversion is exact.
public enum HalfFloat {
    /// The largest finite binary16 value, 65504 = (2 - 2^-10) * 2^15.
    public static let largestFinite: Float = 65504

    /// The float32 value of the binary16 bit pattern `bits`.
    @inline(__always)
    public static func float(fromBits bits: UInt16) -> Float {
        let sign = UInt32(bits & 0x8000) << 16
        let exponent = UInt32(bits >> 10) & 0x1F
        let fraction = UInt32(bits & 0x03FF)
        switch exponent {
        case 0:
            // Zero or subnormal: f * 2^-24, exact in float32.
            let magnitude = Float(fraction) * 0x1.0p-24
            return sign == 0 ? magnitude : -magnitude
        case 0x1F:
            return Float(bitPattern: sign | 0x7F80_0000 | (fraction << 13))
        default:
            return Float(bitPattern: sign | ((exponent + 112) << 23) | (fraction << 13))
        }
    }

    /// The little-endian binary16 values of `bytes` (2 bytes each) as float32.
    public static func floats(fromLittleEndian bytes: UnsafeRawBufferPointer) -> [Float] {
        (0..<(bytes.count / 2)).map { float(fromBits: UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: $0 * 2, as: UInt16.self))) }
    }
}
