import Foundation

/// The SHA-256 of a blob file's bytes as 64 lowercase hex digits, the form of manifest.json's `sha256`,
/// computed by `PlatformSHA256` (CryptoKit on Apple platforms, OpenSSL's libcrypto on Linux).
public enum BlobChecksum {
    /// The hex SHA-256 of `data`.
    public static func sha256Hex(_ data: Data) -> String {
        PlatformSHA256.hex(of: data)
    }
}
