/// The element types a blob can hold (`BlobEntry.dtype`): float32, little-endian (IEEE 754 binary32).
public enum BlobDType: String, Codable, Sendable, CaseIterable {
    case float32

    /// Bytes per element.
    public var size: Int {
        switch self {
        case .float32: return 4
        }
    }
}
