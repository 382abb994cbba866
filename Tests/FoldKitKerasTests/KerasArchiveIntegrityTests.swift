import FoldKitTestSupport
import XCTest
import ZIPFoundation

@testable import FoldKitCore
@testable import FoldKitKeras

/// A `.keras` archive whose entry bytes no longer match the CRC-32 the archive records is refused,
/// naming the entry: a flipped bit inside a stored weight would otherwise land in a blob unnoticed.
/// Errors about the archive's weights name the archive and the entry, not the temporary file they are
/// extracted to.
final class KerasArchiveIntegrityTests: XCTestCase {
    func testAFlippedWeightBitIsRefusedNamingTheEntry() throws {
        let source = TestData.fixture("keras/merges.keras")
        let original = try KerasReader.read(paths: [source.path])
        guard case .convolution(let conv) = original.layers[0].kind, let bias = try conv.bias?.floats().first else {
            return XCTFail("merges.keras starts with a convolution with a bias")
        }
        // The stored entry holds the bias as little-endian float32: flip the lowest mantissa bit of it.
        var bytes = [UInt8](try Data(contentsOf: source))
        let pattern = withUnsafeBytes(of: bias.bitPattern.littleEndian) { [UInt8]($0) }
        let found = (0...(bytes.count - 4)).filter { Array(bytes[$0..<($0 + 4)]) == pattern }
        XCTAssertEqual(found.count, 1, "the bias value occurs once in the archive")
        let at = try XCTUnwrap(found.first)
        bytes[at] ^= 1

        let folder = try TestData.temporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let damaged = folder.appendingPathComponent("damaged.keras")
        try Data(bytes).write(to: damaged)
        XCTAssertThrowsError(try KerasReader.read(paths: [damaged.path])) { error in
            let e = error as? FoldKitError
            XCTAssertEqual(e?.kind, .badInput, "\(error)")
            XCTAssertEqual(e?.file, damaged.path)
            XCTAssertTrue(e?.message.contains("'model.weights.h5' fails its CRC-32 check") == true, "\(error)")
        }
    }

    func testWeightErrorsNameTheArchiveNotTheTemporaryFile() throws {
        let source = try Archive(url: TestData.fixture("keras/merges.keras"), accessMode: .read)
        let folder = try TestData.temporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let edited = folder.appendingPathComponent("edited.keras")
        let archive = try Archive(url: edited, accessMode: .create)
        for entry in source {
            var data = Data()
            _ = try source.extract(entry) { data.append($0) }
            if entry.path == "config.json" {
                // conv0 declares 5 filters; its stored kernel has 3.
                let text = String(decoding: data, as: UTF8.self)
                let changed = text.replacingOccurrences(of: "\"filters\": 3", with: "\"filters\": 5")
                XCTAssertNotEqual(changed, text, "merges.keras's convolutions have 3 filters")
                data = Data(changed.utf8)
            }
            try archive.addEntry(with: entry.path, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .none) { position, size in
                data.subdata(in: Int(position)..<(Int(position) + size))
            }
        }
        XCTAssertThrowsError(try KerasReader.read(paths: [edited.path])) { error in
            let e = error as? FoldKitError
            XCTAssertEqual(e?.file, "\(edited.path) [model.weights.h5]", "\(error)")
        }
    }
}
