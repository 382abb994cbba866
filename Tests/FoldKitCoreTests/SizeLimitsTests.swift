import XCTest

@testable import FoldKitCore

/// `SizeLimits`: products of declared sizes never overflow, and activations are bounded.
final class SizeLimitsTests: XCTestCase {
    func testElementCountRefusesOverflowAndNegativeDimensions() {
        XCTAssertEqual(SizeLimits.elementCount([3, 2, 5]), 30)
        XCTAssertEqual(SizeLimits.elementCount([]), 1)
        XCTAssertEqual(SizeLimits.elementCount([1 << 40, 0]), 0)
        XCTAssertNil(SizeLimits.elementCount([1 << 32, 1 << 31]), "2^63 does not fit Int")
        XCTAssertEqual(SizeLimits.elementCount([1 << 31, 1 << 31]), 1 << 62)
        XCTAssertNil(SizeLimits.elementCount([4, -1]))
    }

    func testActivationBoundIsTwoToTheThirtyOne() throws {
        try SizeLimits.checkActivation(ActivationShape(channels: 2, height: 1 << 15, width: 1 << 15), file: nil, line: nil, layer: nil)
        XCTAssertThrowsError(
            try SizeLimits.checkActivation(
                ActivationShape(channels: 3, height: 1 << 15, width: 1 << 15),
                file: "a.cfg", line: 6, layer: "layer 0 [convolutional]")
        ) { error in
            let error = error as? FoldKitError
            XCTAssertEqual(error?.line, 6)
            XCTAssertEqual(error?.found, "3221225472 values")
        }
        XCTAssertThrowsError(
            try SizeLimits.checkActivation(ActivationShape(channels: 1 << 40, height: 1 << 40, width: 1), file: nil, line: nil, layer: nil))
    }
}
