import FoldKitBlobFormat
import Foundation

/// SHA-256 digests as lowercase hex, the form manifests record, by `PlatformSHA256` (the format module's
/// digest: CryptoKit on Apple platforms, OpenSSL's libcrypto on Linux).
package enum Checksum {
    package static func sha256Hex(_ data: Data) -> String {
        PlatformSHA256.hex(of: data)
    }

    package static func sha256Hex(_ bytes: UnsafeRawBufferPointer) -> String {
        PlatformSHA256.hex(of: bytes)
    }

    /// Digest of a whole file, read in 1 MiB chunks into one reused buffer.
    package static func sha256Hex(fileAt path: String) throws -> String {
        let hasher = PlatformSHA256()
        try RawFile.forEachChunk(of: path) { hasher.update($0) }
        return hex(hasher.finalize())
    }

    static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        PlatformSHA256.hex(digest)
    }
}
