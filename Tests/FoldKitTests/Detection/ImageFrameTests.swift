import XCTest

@testable import FoldKit
@testable import FoldKitCore

final class ImageFrameTests: XCTestCase {
    private let input = ActivationShape(channels: 3, height: 416, width: 416)

    /// A 832 x 416 image letterboxed into 416 x 416: scale 0.5, 104 grey rows above and below, so the image
    /// covers y in [104/416, 312/416] of the input. A box reaching into the padding is clipped to the image.
    func testLetterboxedBoxIsClippedToTheImageAndMappedToItsPixels() {
        let frame = ImageFrame(imageWidth: 832, imageHeight: 416, networkInput: input, scaleX: 0.5, scaleY: 0.5, offsetX: 0, offsetY: 104)
        let bounds = frame.normalisedBounds
        XCTAssertEqual(bounds.top, 0.25, accuracy: 1e-6)
        XCTAssertEqual(bounds.bottom, 0.75, accuracy: 1e-6)
        // Input pixels x 300...500 (beyond the right edge), y 50...200 (into the top padding).
        let box = Detection(classIndex: 0, score: 0.9, objectness: 0.9, x: 400 / 416, y: 125 / 416, width: 200 / 416, height: 150 / 416)
        let clipped = frame.clip(box)
        let pixels = frame.pixels(clipped)
        XCTAssertEqual(pixels.left, 600, accuracy: 1e-3)  // 300 / 0.5
        XCTAssertEqual(pixels.right, 832, accuracy: 1e-3)  // the image's right edge
        XCTAssertEqual(pixels.top, 0, accuracy: 1e-3)  // the image's top, not the padding
        XCTAssertEqual(pixels.bottom, 192, accuracy: 1e-3)  // (200 - 104) / 0.5
    }

    /// An infinite side (float32 `exp` overflow) becomes the image's extent; a NaN stays NaN.
    func testInfiniteSideBecomesTheImageEdge() {
        let frame = ImageFrame(networkInput: input)
        let wide = frame.clip(Detection(classIndex: 0, score: 0.9, objectness: 0.9, x: 0.3, y: 0.5, width: .infinity, height: 0.1))
        XCTAssertEqual(wide.x, 0.5)
        XCTAssertEqual(wide.width, 1)
        XCTAssertEqual(wide.height, 0.1, accuracy: 1e-7)
        XCTAssertTrue(wide.hasFiniteGeometry)
        let broken = frame.clip(Detection(classIndex: 0, score: 0.9, objectness: 0.9, x: .nan, y: 0.5, width: 0.1, height: 0.1))
        XCTAssertFalse(broken.hasFiniteGeometry)
    }

    /// Without an image the frame is the input and pixels are input pixels.
    func testNoImageMeansInputPixels() {
        let frame = ImageFrame(networkInput: ActivationShape(channels: 3, height: 320, width: 640))
        let p = frame.pixels(Detection(classIndex: 0, score: 1, objectness: 1, x: 0.5, y: 0.5, width: 0.25, height: 0.5))
        XCTAssertEqual(p.left, 240, accuracy: 1e-4)
        XCTAssertEqual(p.right, 400, accuracy: 1e-4)
        XCTAssertEqual(p.top, 80, accuracy: 1e-4)
        XCTAssertEqual(p.bottom, 240, accuracy: 1e-4)
    }
}
