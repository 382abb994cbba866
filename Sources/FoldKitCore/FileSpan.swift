import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A run of little-endian float32 values inside a file, read only when needed so that large models
/// stream through conversion without being held in memory.
public struct FileSpan: Hashable, Sendable, Codable {
    /// The file.
    public var path: String
    /// Where the first value starts, in bytes from the file's start.
    public var byteOffset: Int
    /// The number of float32 values.
    public var count: Int

    /// `count` float32 values at `byteOffset` of `path`.
    public init(path: String, byteOffset: Int, count: Int) {
        self.path = path
        self.byteOffset = byteOffset
        self.count = count
    }

    /// count x 4 bytes.
    public var byteCount: Int { count * 4 }
    /// The bytes the span covers: byteOffset ..< byteOffset + byteCount.
    public var byteRange: Range<Int> { byteOffset..<(byteOffset + byteCount) }
}
