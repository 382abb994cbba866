import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A run of little-endian float32 values inside a file, read only when needed so that large models
/// stream through conversion without being held in memory.
public struct FileSpan: Hashable, Sendable {
    public var path: String
    public var byteOffset: Int
    public var count: Int

    public init(path: String, byteOffset: Int, count: Int) {
        self.path = path
        self.byteOffset = byteOffset
        self.count = count
    }

    public var byteCount: Int { count * 4 }
    public var byteRange: Range<Int> { byteOffset..<(byteOffset + byteCount) }
}
