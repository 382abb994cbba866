import Foundation
import XCTest

@testable import FoldKitCore
@testable import FoldKitDarknet

final class WeightsHeaderTests: XCTestCase {
    private func bytes(_ values: [UInt32]) -> Data {
        var data = Data()
        for v in values { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
        return data
    }

    func testTwentyByteHeaderWith64BitSeen() throws {
        // 0.2.5, seen = 0x1_0000_0002 (needs the high word)
        let header = try DarknetWeightsHeader.decode(bytes([0, 2, 5, 2, 1]), path: "w")
        XCTAssertEqual(header.version, "0.2.5")
        XCTAssertEqual(header.byteCount, 20)
        XCTAssertEqual(header.seen, 0x1_0000_0002)
    }

    func testSixteenByteHeaderWith32BitSeen() throws {
        // 0.1.0: major*10+minor = 1 < 2
        let header = try DarknetWeightsHeader.decode(bytes([0, 1, 0, 12345, 0xFFFF_FFFF]), path: "w")
        XCTAssertEqual(header.byteCount, 16)
        XCTAssertEqual(header.seen, 12345)
    }

    func testHugeVersionNumbersUse32BitSeen() throws {
        let header = try DarknetWeightsHeader.decode(bytes([1001, 2, 0, 7, 9]), path: "w")
        XCTAssertEqual(header.byteCount, 16)
        XCTAssertTrue(header.connectedWeightsTransposed)
    }

    func testEncodeRoundTrips() throws {
        let header = DarknetWeightsHeader(major: 0, minor: 2, revision: 5, seen: 0)
        XCTAssertEqual(header.encoded, bytes([0, 2, 5, 0, 0]))
        XCTAssertEqual(try DarknetWeightsHeader.decode(header.encoded, path: "w"), header)
    }

    func testShortHeaderIsAnError() {
        XCTAssertThrowsError(try DarknetWeightsHeader.decode(bytes([0, 2, 5]), path: "short.weights")) { error in
            let e = error as? FoldKitError
            XCTAssertEqual(e?.kind, .badInput)
            XCTAssertEqual(e?.file, "short.weights")
            XCTAssertEqual(e?.expected, "20 bytes")
            XCTAssertEqual(e?.found, "12 bytes")
        }
        XCTAssertThrowsError(try DarknetWeightsHeader.decode(Data([1, 2]), path: "tiny.weights")) { error in
            XCTAssertEqual((error as? FoldKitError)?.kind, .badInput)
        }
    }
}
