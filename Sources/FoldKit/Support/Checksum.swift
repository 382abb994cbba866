import Crypto
import Foundation

/// SHA-256 digests as lowercase hex, the form manifests record.
public enum Checksum {
    public static func sha256Hex(_ data: Data) -> String {
        hex(SHA256.hash(data: data))
    }

    public static func sha256Hex(_ bytes: UnsafeRawBufferPointer) -> String {
        hex(SHA256.hash(data: bytes))
    }

    /// Digest of a whole file, read in 4 MiB chunks.
    public static func sha256Hex(fileAt path: String) throws -> String {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw FoldKitError(.io, "cannot open file to checksum it", file: path)
        }
        defer { try? handle.close() }
        var hasher = SHA256()
        while true {
            let chunk: Data
            do { chunk = try handle.read(upToCount: 4 << 20) ?? Data() } catch {
                throw FoldKitError(.io, "read failed: \(error)", file: path)
            }
            if chunk.isEmpty { break }
            hasher.update(data: chunk)
        }
        return hex(hasher.finalize())
    }

    private static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}
