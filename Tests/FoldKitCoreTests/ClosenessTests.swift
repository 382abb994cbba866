import FoldKitTestSupport
import XCTest

/// The shared comparison every numeric test uses must fail on NaN, infinity and count mismatches,
/// or an executor returning garbage would pass.
final class ClosenessTests: XCTestCase {
    func testWithinTolerancePasses() {
        let r = Closeness.compare([1.0, 2.05, -3.0] as [Double], [1.0, 2.0, -3.001] as [Float], atol: 0.06)
        XCTAssertTrue(r.passed, "\(r)")
        XCTAssertEqual(r.worstIndex, 1)
        XCTAssertEqual(r.worstDeviation, 0.05, accuracy: 1e-6)
    }

    func testOutsideToleranceFails() {
        let r = Closeness.compare([1.0, 2.2] as [Double], [1.0, 2.0] as [Double], atol: 0.1)
        XCTAssertFalse(r.passed)
        XCTAssertEqual(r.failingCount, 1)
        XCTAssertEqual(r.worstIndex, 1)
    }

    func testNaNInActualFails() {
        let r = Closeness.compare([1.0, .nan, 3.0] as [Float], [1.0, 2.0, 3.0] as [Double], atol: 1e9, rtol: 1e9, scaledTolerance: 1e9)
        XCTAssertFalse(r.passed)
        XCTAssertEqual(r.nonFiniteCount, 1)
        XCTAssertEqual(r.worstIndex, 1)
        XCTAssertTrue(r.description.contains("NaN"), r.description)
    }

    func testAllNaNFails() {
        let r = Closeness.compare([Double](repeating: .nan, count: 4), [0.0, 1, 2, 3] as [Double], scaledTolerance: 1)
        XCTAssertFalse(r.passed)
        XCTAssertEqual(r.failingCount, 4)
    }

    func testInfinityInActualFails() {
        XCTAssertFalse(Closeness.compare([Float.infinity], [1.0] as [Float], atol: 1e30).passed)
        XCTAssertFalse(Closeness.compare([-Double.infinity], [1e300] as [Double], rtol: 10).passed)
    }

    func testCountMismatchFails() {
        let r = Closeness.compare([1.0, 2.0] as [Double], [1.0, 2.0, 3.0] as [Double], atol: 1)
        XCTAssertFalse(r.passed)
        XCTAssertTrue(r.description.contains("element count 2, expected 3"), r.description)
    }

    /// Both sides NaN (float32 and float64 executors broken alike) must fail by default.
    func testNaNInReferenceFailsByDefault() {
        let r = Closeness.compare([Double.nan, 1], [Double.nan, 1], atol: 1)
        XCTAssertFalse(r.passed)
        XCTAssertEqual(r.nonFiniteExpectedCount, 1)
        XCTAssertTrue(r.description.contains("in the reference itself"), r.description)
        XCTAssertFalse(Closeness.compare([Double.infinity], [Double.infinity]).passed)
    }

    func testAllowedNonFiniteReferenceNeedsTheSameValue() {
        XCTAssertTrue(
            Closeness.compare([Double.infinity, .nan, -.infinity], [Double.infinity, .nan, -.infinity], allowNonFiniteExpected: true).passed)
        XCTAssertFalse(Closeness.compare([1.0], [Double.infinity], allowNonFiniteExpected: true).passed)
        XCTAssertFalse(Closeness.compare([Double.infinity], [-Double.infinity], allowNonFiniteExpected: true).passed)
        XCTAssertFalse(Closeness.compare([1.0], [Double.nan], allowNonFiniteExpected: true).passed)
    }

    func testRelativeAndScaledBounds() {
        // rtol: bound 0.01 * |100| = 1 at element 0, 0.01 * 1 = 0.01 at element 1.
        XCTAssertTrue(Closeness.compare([100.9, 1.0] as [Double], [100.0, 1.0] as [Double], rtol: 0.01).passed)
        XCTAssertFalse(Closeness.compare([100.0, 1.5] as [Double], [100.0, 1.0] as [Double], rtol: 0.01).passed)
        // scaled: bound 0.01 * max|expected| = 1 everywhere.
        XCTAssertTrue(Closeness.compare([100.0, 1.9] as [Double], [100.0, 1.0] as [Double], scaledTolerance: 0.01).passed)
        XCTAssertFalse(Closeness.compare([100.0, 2.1] as [Double], [100.0, 1.0] as [Double], scaledTolerance: 0.01).passed)
    }
}
