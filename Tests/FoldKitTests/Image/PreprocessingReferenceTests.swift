import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit
@testable import FoldKitIO
@testable import FoldKitImage

/// Letterbox and center crop against an independent numpy implementation of the documented rule
/// (Fixtures/images/make_preprocessing_reference.py): every pixel of every channel.
final class PreprocessingReferenceTests: XCTestCase {
    private func check(_ mode: ResizeMode, width: Int, height: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        let image = try ImageFile.read(path: TestData.fixture("images/noise.png").path)
        XCTAssertEqual(image.width, 22, file: file, line: line)
        XCTAssertEqual(image.height, 13, file: file, line: line)
        var preprocessing = ImagePreprocessing(mode: mode, channelOrder: .rgb)
        let tensor = try preprocessing.tensor(from: image, shape: ActivationShape(channels: 3, height: height, width: width))
        let reference = try NPYFile.read(path: TestData.fixture("images/noise.png.\(mode.rawValue)\(width)x\(height).npy").path)
        XCTAssertEqual(reference.shape, [3, height, width], file: file, line: line)
        // float32 interpolation of values / 255: rounding far below one level (1/255 = 3.9e-3).
        assertClose(tensor, reference.values, atol: 1e-5, "\(mode.rawValue) \(width)x\(height) vs numpy", file: file, line: line)
    }

    /// 22x13 into 15x15: s = 15/22, and 22 * (15/22) = 14.999999999999998 in floating point; darknet's
    /// integer new_w = 15 must be used, or the last column stays grey.
    func testLetterboxWidthLimited() throws { try check(.letterbox, width: 15, height: 15) }

    /// 22x13 into 16x6: s = 6/13, new_w = 22 * 6 // 13 = 10, offset x = 3.
    func testLetterboxHeightLimited() throws { try check(.letterbox, width: 16, height: 6) }

    func testCenterCropSquare() throws { try check(.centerCrop, width: 15, height: 15) }

    func testCenterCropTall() throws { try check(.centerCrop, width: 9, height: 16) }
}
