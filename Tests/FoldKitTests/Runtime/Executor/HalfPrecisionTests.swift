import FoldKitCore
import XCTest

@testable import FoldKit

/// `HalfPrecision.rounded` and `roundedToHalf()`: IEEE-754 binary16 round-to-nearest-even, taken directly from
/// the value's own precision. Values are written as powers of two so each expectation follows from the
/// binary16 format (10 fraction bits, largest finite 65504, smallest subnormal 2^-24).
final class HalfPrecisionTests: XCTestCase {
    func testRoundsToNearestEvenAtTheTenthFractionBit() throws {
        try XCTSkipUnless(HalfPrecision.isAvailable, "Swift's Float16 does not exist on this platform (Intel macOS)")
        let ulp: Float = 0x1p-10  // spacing of binary16 values in [1, 2)
        XCTAssertEqual(HalfPrecision.rounded(Float(1) + ulp / 2), 1, "a tie rounds to the even neighbour, 1")
        XCTAssertEqual(HalfPrecision.rounded(Float(1) + 3 * ulp / 2), 1 + 2 * ulp, "a tie rounds to the even neighbour, 1 + 2^-9")
        XCTAssertEqual(HalfPrecision.rounded(Float(1) + ulp / 2 + 0x1p-20), 1 + ulp, "just above a tie rounds up")
        XCTAssertEqual(HalfPrecision.rounded(Float(65519)), 65504, "below the overflow threshold: the largest finite value")
        XCTAssertEqual(HalfPrecision.rounded(Float(65520)), .infinity, "at the overflow threshold: infinity")
        XCTAssertEqual(HalfPrecision.rounded(Float(0x1p-24)), 0x1p-24, "the smallest subnormal is exact")
        XCTAssertEqual(HalfPrecision.rounded(Float(0x1p-25)), 0, "half the smallest subnormal is a tie, rounded to even (zero)")
        XCTAssertEqual(Float(1 + ulp / 2 + 0x1p-20).roundedToHalf(), 1 + ulp, "roundedToHalf() is HalfPrecision.rounded")
    }

    /// 1 + 2^-11 + 2^-40 lies just above the tie between 1 and 1 + 2^-10. Rounded from Double it goes up; rounded
    /// through Float first it would lose the 2^-40, land on the tie and go to 1 (the even neighbour).
    func testDoubleIsRoundedDirectlyNotThroughFloat() throws {
        try XCTSkipUnless(HalfPrecision.isAvailable, "Swift's Float16 does not exist on this platform (Intel macOS)")
        let x: Double = 1 + 0x1p-11 + 0x1p-40
        XCTAssertEqual(Float(x), 1 + 0x1p-11, "the premise: Float drops the 2^-40")
        XCTAssertEqual(HalfPrecision.rounded(x), 1 + 0x1p-10)
        XCTAssertEqual(x.roundedToHalf(), 1 + 0x1p-10)
    }
}
