import FoldKitTestSupport
import XCTest

@testable import FoldKitCore
@testable import FoldKitKeras

/// A `.keras` archive whose entry bytes no longer match the CRC-32 the archive records is refused,
/// naming the entry: a flipped bit inside a stored weight would otherwise land in a blob unnoticed.
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
}
