import Foundation

#if canImport(CryptoKit)
    import CryptoKit
#endif

/// The SHA-256 of a blob file's bytes as 64 lowercase hex digits, the form of manifest.json's `sha256`.
/// CryptoKit where the platform has it (Apple), `PortableSHA256` elsewhere (Linux); both give the
/// FIPS 180-4 digest.
public enum BlobChecksum {
    /// The hex SHA-256 of `data`.
    public static func sha256Hex(_ data: Data) -> String {
        #if canImport(CryptoKit)
            return SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
        #else
            return PortableSHA256.hex(of: data)
        #endif
    }
}
