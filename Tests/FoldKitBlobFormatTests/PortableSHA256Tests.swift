import Crypto
import FoldKitBlobFormat
import Foundation
import XCTest

/// The loader's own SHA-256 (used where CryptoKit is missing) against the FIPS 180-4 example vectors and
/// against swift-crypto on random inputs of many lengths and splits.
final class PortableSHA256Tests: XCTestCase {
    private func hex(_ text: String) -> String { PortableSHA256.hex(of: Array(text.utf8)) }

    /// NIST's published examples (FIPS 180-4 / the NIST "SHA256.pdf" and "SHA2_Additional" examples).
    func testNISTVectors() {
        XCTAssertEqual(hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(
            hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        XCTAssertEqual(
            hex("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"),
            "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
        XCTAssertEqual(
            PortableSHA256.hex(of: [UInt8](repeating: 0x61, count: 1_000_000)),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
    }

    private func cryptoHex(_ bytes: [UInt8]) -> String { SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined() }

    /// Every length from 0 to 300 (all padding cases: 55, 56, 63, 64 and 119, 120 bytes among them) and a
    /// few large ones, fed whole and in random pieces.
    func testRandomInputsMatchSwiftCrypto() {
        var generator = SystemRandomNumberGenerator()
        let lengths = Array(0...300) + [511, 512, 513, 1000, 4095, 4096, 4097, 65_537, 1 << 20]
        for length in lengths {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let expected = cryptoHex(bytes)
            XCTAssertEqual(PortableSHA256.hex(of: bytes), expected, "length \(length)")
            var pieces = PortableSHA256()
            var start = 0
            while start < length {
                let end = min(length, start + Int.random(in: 0...130, using: &generator))
                bytes[start..<end].withUnsafeBytes { pieces.update($0) }
                start = end
            }
            XCTAssertEqual(pieces.finalize().map { String(format: "%02x", $0) }.joined(), expected, "length \(length) in pieces")
        }
    }

    /// The checksum the loader uses (CryptoKit or the portable one) is the standard digest of `Data`.
    func testBlobChecksumOfData() {
        let data = Data((0..<1234).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        XCTAssertEqual(BlobChecksum.sha256Hex(data), cryptoHex(Array(data)))
        XCTAssertEqual(BlobChecksum.sha256Hex(data.subdata(in: 3..<1000)), cryptoHex(Array(data[3..<1000])))
    }
}
