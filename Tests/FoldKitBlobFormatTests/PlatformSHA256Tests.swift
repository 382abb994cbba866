import FoldKitBlobFormat
import FoldKitTestSupport
import Foundation
import XCTest

/// The platform's SHA-256 (`PlatformSHA256`: CryptoKit on Apple platforms, OpenSSL's libcrypto on Linux)
/// against the FIPS 180-4 example vectors, fed whole and in random pieces, and against coreutils'
/// `sha256sum`, an implementation of its own, where the machine has it.
final class PlatformSHA256Tests: XCTestCase {
    private func hex(_ text: String) -> String { PlatformSHA256.hex(of: Array(text.utf8)) }

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
            PlatformSHA256.hex(of: [UInt8](repeating: 0x61, count: 1_000_000)),
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        // One million "a" fed a byte at a time and in uneven pieces gives the same digest.
        let pieces = PlatformSHA256()
        var fed = 0
        for size in [1, 1, 62, 64, 65, 999_807] {
            pieces.update([UInt8](repeating: 0x61, count: size))
            fed += size
        }
        XCTAssertEqual(fed, 1_000_000)
        XCTAssertEqual(PlatformSHA256.hex(pieces.finalize()), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        XCTAssertEqual(pieces.finalize().count, 32, "finalize again returns the same 32 bytes")
    }

    /// Every length from 0 to 300 (all padding cases: 55, 56, 63, 64 and 119, 120 bytes among them) and a
    /// few large ones: fed in random pieces, the digest is the one of the bytes fed whole.
    func testRandomPiecesGiveTheWholeDigest() {
        var generator = SystemRandomNumberGenerator()
        let lengths = Array(0...300) + [511, 512, 513, 1000, 4095, 4096, 4097, 65_537, 1 << 20]
        for length in lengths {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let whole = PlatformSHA256.hex(of: bytes)
            let pieces = PlatformSHA256()
            var start = 0
            while start < length {
                let end = min(length, start + Int.random(in: 0...130, using: &generator))
                bytes[start..<end].withUnsafeBytes { pieces.update($0) }
                start = end
            }
            XCTAssertEqual(PlatformSHA256.hex(pieces.finalize()), whole, "length \(length) in pieces")
        }
    }

    /// Random files of lengths around the padding boundaries and a large one against `sha256sum`.
    func testAgreesWithSha256sum() throws {
        let tool = "/usr/bin/sha256sum"
        guard FileManager.default.isExecutableFile(atPath: tool) else { throw XCTSkip("no \(tool) on this machine") }
        let folder = try TestData.temporaryDirectory("foldkit-sha256")
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        var generator = SystemRandomNumberGenerator()
        for length in [0, 55, 56, 63, 64, 65, 1000, 65_537] {
            let bytes = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let file = folder.appendingPathComponent("\(length).bin")
            try bytes.write(to: file)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = [file.path]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let output = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let expected = String(decoding: output, as: UTF8.self).split(separator: " ").first.map(String.init)
            XCTAssertEqual(PlatformSHA256.hex(of: bytes), expected, "length \(length)")
            XCTAssertEqual(BlobChecksum.sha256Hex(bytes), expected, "BlobChecksum, length \(length)")
        }
    }

    /// The checksum the loader uses is the digest of the bytes of `Data`, also of a slice not starting at 0.
    func testBlobChecksumOfData() {
        let data = Data((0..<1234).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        XCTAssertEqual(BlobChecksum.sha256Hex(data), PlatformSHA256.hex(of: Array(data)))
        XCTAssertEqual(BlobChecksum.sha256Hex(data.subdata(in: 3..<1000)), PlatformSHA256.hex(of: Array(data[3..<1000])))
        XCTAssertEqual(BlobChecksum.sha256Hex(data[3..<1000]), PlatformSHA256.hex(of: Array(data[3..<1000])))
    }
}
