import FoldKitBlobFormat
import Foundation
import XCTest

/// `HalfFloat` widens every one of the 65,536 binary16 bit patterns exactly as Swift's own `Float16` does.
final class HalfFloatTests: XCTestCase {
    func testEveryBitPatternWidensAsSwiftsFloat16() throws {
        #if os(macOS) && arch(x86_64)
            throw XCTSkip("Swift has no Float16 on Intel Macs to compare with")
        #else
            for bits in 0...UInt16.max {
                let expected = Float(Float16(bitPattern: bits)), found = HalfFloat.float(fromBits: bits)
                if expected.isNaN {
                    XCTAssertTrue(found.isNaN, "bits \(bits)")
                    XCTAssertEqual(found.sign, expected.sign, "bits \(bits)")
                } else {
                    XCTAssertEqual(found.bitPattern, expected.bitPattern, "bits \(String(bits, radix: 16)): \(found) vs \(expected)")
                }
            }
        #endif
    }

    func testLargestFiniteAndLittleEndianBytes() {
        XCTAssertEqual(HalfFloat.float(fromBits: 0x7BFF), HalfFloat.largestFinite)
        XCTAssertEqual(HalfFloat.float(fromBits: 0x7C00), .infinity)
        XCTAssertEqual(HalfFloat.float(fromBits: 0x0001), 0x1.0p-24)
        let bytes: [UInt8] = [0x00, 0x3C, 0x00, 0xC0]  // 1.0, -2.0
        XCTAssertEqual(bytes.withUnsafeBytes { HalfFloat.floats(fromLittleEndian: $0) }, [1, -2])
        XCTAssertEqual(BlobValues.floats(Data(bytes), dtype: .float16), [1, -2])
    }
}
