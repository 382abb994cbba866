import Crypto
import Foundation

/// SHA-256 digests as lowercase hex, the form manifests record.
package enum Checksum {
    package static func sha256Hex(_ data: Data) -> String {
        hex(SHA256.hash(data: data))
    }

    package static func sha256Hex(_ bytes: UnsafeRawBufferPointer) -> String {
        var hasher = SHA256()
        hasher.update(bufferPointer: bytes)
        return hex(hasher.finalize())
    }

    /// Digest of a whole file, read in 1 MiB chunks into one reused buffer.
    package static func sha256Hex(fileAt path: String) throws -> String {
        var hasher = SHA256()
        try RawFile.forEachChunk(of: path) { hasher.update(bufferPointer: $0) }
        return hex(hasher.finalize())
    }

    static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        let digits: [UInt8] = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in digest {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
