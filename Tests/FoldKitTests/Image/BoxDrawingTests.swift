import XCTest

@testable import FoldKit
@testable import FoldKitImage

final class BoxDrawingTests: XCTestCase {
    private func pixel(_ image: RGBImage, _ x: Int, _ y: Int) -> (UInt8, UInt8, UInt8) {
        let i = (y * image.width + x) * 3
        return (image.pixels[i], image.pixels[i + 1], image.pixels[i + 2])
    }

    /// The label sits on a strip of the class colour above the box's top-left corner, with the glyphs'
    /// pixels in the text colour exactly where the font says: "1" has its stem in column 2 of the glyph.
    func testLabelDrawsGlyphsAboveTheCorner() {
        var image = RGBImage(width: 60, height: 40, pixels: [UInt8](repeating: 128, count: 60 * 40 * 3))
        let background: (UInt8, UInt8, UInt8) = (0, 130, 200)
        BoxDrawing.label(&image, "1", left: 10, top: 20, background: background)
        let ink = BoxDrawing.textColor(on: background)
        XCTAssertTrue(ink == (255, 255, 255))
        // Strip: 9 rows (7 + padding 1 above and below) ending just above row 20, from column 10.
        let glyphTop = 20 - 9 + 1, glyphLeft = 11
        for (row, bits) in BitmapFont.glyph("1").enumerated() {
            for column in 0..<5 {
                let expected = bits & (0x10 >> column) != 0 ? ink : background
                XCTAssertTrue(pixel(image, glyphLeft + column, glyphTop + row) == expected, "row \(row) column \(column)")
            }
        }
        XCTAssertTrue(pixel(image, 10, 25) == (128, 128, 128))  // below the corner: untouched
    }

    /// A box at the top edge gets its label inside the box, and text wider than the image is clipped.
    func testLabelAtTheTopEdgeGoesInsideAndIsClipped() {
        var image = RGBImage(width: 20, height: 20, pixels: [UInt8](repeating: 0, count: 20 * 20 * 3))
        BoxDrawing.label(&image, "person 0.99", left: 2, top: 0, background: (255, 225, 25))
        XCTAssertTrue(pixel(image, 2, 0) == (255, 225, 25))
        XCTAssertTrue((0..<20).contains { x in (0..<9).contains { y in pixel(image, x, y) == (0, 0, 0) && x >= 3 } })
        XCTAssertTrue(pixel(image, 5, 15) == (0, 0, 0))
    }

    func testUnknownCharactersDrawAsQuestionMarkAndLowerCaseAsUpper() {
        XCTAssertEqual(BitmapFont.glyph("é"), BitmapFont.glyph("?"))
        XCTAssertEqual(BitmapFont.glyph("d"), BitmapFont.glyph("D"))
        XCTAssertNotEqual(BitmapFont.glyph("D"), BitmapFont.glyph("O"))
        XCTAssertEqual(BitmapFont.width(of: "dog", scale: 2), 34)
    }
}
