import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit
@testable import FoldKitIO
@testable import FoldKitImage

/// References under Fixtures/images come from OpenCV (Fixtures/images/generate.py).
final class ImageTests: XCTestCase {
    private func reference(_ name: String) throws -> [Float] {
        try NPYFile.read(path: TestData.fixture("images/\(name)").path).values
    }

    func testDecodesPNGAndJPEGLikeOpenCV() throws {
        for name in ["gradient.png", "gradient.jpg"] {
            let image = try ImageFile.read(path: TestData.fixture("images/\(name)").path)
            XCTAssertEqual(image.width, 40)
            XCTAssertEqual(image.height, 24)
            let expected = try reference("\(name).rgb.npy")
            // Both use libjpeg-turbo's default (islow) decoder, so JPEG pixels agree exactly as PNG's do.
            assertClose(image.pixels.map(Float.init), expected, "\(name) pixels vs OpenCV")
        }
    }

    func testStretchMatchesOpenCVBilinearWithinOneLevel() throws {
        let image = try ImageFile.read(path: TestData.fixture("images/gradient.png").path)
        var preprocessing = ImagePreprocessing(mode: .stretch, channelOrder: .rgb)
        let tensor = try preprocessing.tensor(from: image, shape: ActivationShape(channels: 3, height: 12, width: 16))
        let expected = try reference("gradient.png.stretch16x12.npy")
        // OpenCV resizes uint8 images in fixed point and rounds to whole levels; we stay in float.
        assertClose(tensor, expected, atol: 1.0 / 255, "stretch vs OpenCV bilinear")
    }

    func testBGRSwapsChannels() throws {
        let image = RGBImage(width: 2, height: 2, fill: (255, 0, 51))
        var rgb = ImagePreprocessing(mode: .stretch, channelOrder: .rgb)
        var bgr = ImagePreprocessing(mode: .stretch, channelOrder: .bgr)
        let shape = ActivationShape(channels: 3, height: 2, width: 2)
        XCTAssertEqual(try rgb.tensor(from: image, shape: shape)[0], 1)
        XCTAssertEqual(try bgr.tensor(from: image, shape: shape)[0], 0.2)
    }

    func testLetterboxPadsAndMapsBoxesBack() throws {
        // 40x20 image into 20x20: scaled by 0.5 to 20x10, placed at y offset 5.
        let image = RGBImage(width: 40, height: 20, fill: (255, 255, 255))
        var letterbox = ImagePreprocessing(mode: .letterbox, channelOrder: .rgb)
        let shape = ActivationShape(channels: 3, height: 20, width: 20)
        let tensor = try letterbox.tensor(from: image, shape: shape)
        XCTAssertEqual(tensor[0 * 20 + 0], 0.5)  // padding row
        XCTAssertEqual(tensor[5 * 20 + 0], 1)  // first image row
        XCTAssertEqual(tensor[15 * 20 + 0], 0.5)  // padding again
        let box = Detection(classIndex: 0, score: 1, objectness: 1, x: 0.5, y: 0.5, width: 0.5, height: 0.25)
        let mapped = letterbox.imageBox(box, networkInput: shape)
        XCTAssertEqual(mapped.left, 10, accuracy: 1e-9)
        XCTAssertEqual(mapped.right, 30, accuracy: 1e-9)
        XCTAssertEqual(mapped.top, 5, accuracy: 1e-9)
        XCTAssertEqual(mapped.bottom, 15, accuracy: 1e-9)
    }

    func testCenterCropMapsBoxesBack() throws {
        // 40x20 image into 10x10: scaled by 0.5 to 20x10, 5 columns cropped each side.
        var crop = ImagePreprocessing(mode: .centerCrop, channelOrder: .rgb)
        let shape = ActivationShape(channels: 3, height: 10, width: 10)
        _ = try crop.tensor(from: RGBImage(width: 40, height: 20), shape: shape)
        let box = Detection(classIndex: 0, score: 1, objectness: 1, x: 0.5, y: 0.5, width: 1, height: 1)
        let mapped = crop.imageBox(box, networkInput: shape)
        XCTAssertEqual(mapped.left, 10, accuracy: 1e-9)
        XCTAssertEqual(mapped.right, 30, accuracy: 1e-9)
        XCTAssertEqual(mapped.top, 0, accuracy: 1e-9)
        XCTAssertEqual(mapped.bottom, 20, accuracy: 1e-9)
    }

    func testPNGRoundTripAndDrawing() throws {
        var image = RGBImage(width: 8, height: 6, fill: (10, 20, 30))
        BoxDrawing.rectangle(&image, left: 1, top: 1, right: 6, bottom: 4, color: (255, 0, 0), thickness: 1)
        let url = try TestData.temporaryDirectory().appendingPathComponent("boxes.png")
        try ImageFile.writePNG(image, to: url.path)
        let back = try ImageFile.read(path: url.path)
        XCTAssertEqual(back, image)
        XCTAssertEqual(Array(back.pixels[(1 * 8 + 3) * 3..<(1 * 8 + 3) * 3 + 3]), [255, 0, 0])  // top edge
        XCTAssertEqual(Array(back.pixels[(2 * 8 + 3) * 3..<(2 * 8 + 3) * 3 + 3]), [10, 20, 30])  // inside
    }

    func testRejectsNonImages() throws {
        let url = try TestData.temporaryDirectory().appendingPathComponent("x.jpg")
        try Data("hello".utf8).write(to: url)
        XCTAssertThrowsError(try ImageFile.read(path: url.path)) { XCTAssertTrue("\($0)".contains("not a JPEG or PNG")) }
    }
}
