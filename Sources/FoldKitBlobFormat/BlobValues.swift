import Foundation

/// A blob file's bytes as float32 values, whatever its dtype: float32 read as is, float16 widened exactly
/// (`HalfFloat`). Both are little-endian.
public enum BlobValues {
    /// The values of `data` holding elements of `dtype`.
    public static func floats(_ data: Data, dtype: BlobDType) -> [Float] {
        data.withUnsafeBytes { raw in
            switch dtype {
            case .float16:
                return HalfFloat.floats(fromLittleEndian: raw)
            case .float32:
                return (0..<(raw.count / 4)).map {
                    Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self)))
                }
            }
        }
    }
}
