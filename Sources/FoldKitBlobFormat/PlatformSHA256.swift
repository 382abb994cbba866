import Foundation

#if canImport(CryptoKit)
    import CryptoKit
#elseif canImport(CLibCrypto)
    import CLibCrypto
#endif

/// SHA-256 (FIPS 180-4) from the platform's own library: CryptoKit on Apple platforms, OpenSSL's libcrypto
/// (its EVP digest API) on Linux, found through pkg-config as `CLibCrypto` (Debian: libssl-dev). The one
/// digest of the project: the converter's blob and file checksums and the loader's check use it, so the
/// two sides cannot disagree, and no SHA-256 is written by hand.
///
/// Streaming: feed bytes with `update` (any split gives the same digest), then `finalize()`. A hasher holds
/// a library context, so it is a class; use one per digest, on one thread at a time.
public final class PlatformSHA256 {
    #if canImport(CryptoKit)
        private var hasher = CryptoKit.SHA256()
    #elseif canImport(CLibCrypto)
        /// The EVP_MD_CTX, initialised for SHA-256; freed in deinit.
        private let context: OpaquePointer
    #else
        #error("PlatformSHA256 needs CryptoKit (Apple) or OpenSSL's libcrypto (the CLibCrypto target, Linux)")
    #endif
    /// The digest once `finalize()` ran; no byte may be fed after it.
    private var digest: [UInt8]?

    /// A digest of no bytes yet.
    public init() {
        #if !canImport(CryptoKit)
            // Fails only without memory or with a libcrypto that offers no SHA-256 (a broken provider
            // configuration): the program cannot check or write a checksum then.
            guard let context = EVP_MD_CTX_new() else { fatalError("libcrypto: EVP_MD_CTX_new failed") }
            guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
                EVP_MD_CTX_free(context)
                fatalError("libcrypto: SHA-256 is not available (EVP_DigestInit_ex failed)")
            }
            self.context = context
        #endif
    }

    deinit {
        #if !canImport(CryptoKit)
            EVP_MD_CTX_free(context)
        #endif
    }

    /// Feeds `bytes` to the digest.
    public func update(_ bytes: UnsafeRawBufferPointer) {
        precondition(digest == nil, "PlatformSHA256: update after finalize")
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        #if canImport(CryptoKit)
            hasher.update(bufferPointer: UnsafeRawBufferPointer(start: base, count: bytes.count))
        #else
            precondition(EVP_DigestUpdate(context, base, bytes.count) == 1, "libcrypto: EVP_DigestUpdate failed")
        #endif
    }

    /// Feeds the bytes of `data` (`Data`, `[UInt8]`, an array slice, ...).
    public func update<Bytes: ContiguousBytes>(_ data: Bytes) {
        data.withUnsafeBytes { update($0) }
    }

    /// The 32-byte digest of everything fed. Calling it again returns the same digest.
    public func finalize() -> [UInt8] {
        if let digest { return digest }
        #if canImport(CryptoKit)
            let result = Array(hasher.finalize())
        #else
            var result = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
            var length: UInt32 = 0
            precondition(EVP_DigestFinal_ex(context, &result, &length) == 1 && length == 32, "libcrypto: EVP_DigestFinal_ex failed")
            result.removeLast(result.count - Int(length))
        #endif
        digest = result
        return result
    }

    /// The digest of `bytes` as 64 lowercase hex digits, the form of manifest.json's `sha256`.
    public static func hex<Bytes: ContiguousBytes>(of bytes: Bytes) -> String {
        let hasher = PlatformSHA256()
        hasher.update(bytes)
        return hex(hasher.finalize())
    }

    /// `digest` as lowercase hex, two digits a byte.
    public static func hex<Digest: Sequence>(_ digest: Digest) -> String where Digest.Element == UInt8 {
        let digits = Array("0123456789abcdef".utf8)
        var text = [UInt8]()
        text.reserveCapacity(64)
        for byte in digest {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
