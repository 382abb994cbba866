/// The element types a blob can hold (`BlobEntry.dtype`), little-endian.
public enum BlobDType: String, Codable, Sendable, CaseIterable {
    /// IEEE 754 binary32.
    case float32
    /// IEEE 754 binary16 (half precision: 1 sign, 5 exponent, 10 fraction bits; largest finite 65504),
    /// rounded to nearest even from the float32 value (Metal's `MPSDataType.float16` weights).
    case float16

    /// Bytes per element.
    public var size: Int {
        switch self {
        case .float32: return 4
        case .float16: return 2
        }
    }
}
