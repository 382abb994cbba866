import FoldKit
import FoldKitImage
import Foundation

/// `verify --image`: the final boxes printed in image pixels and, with `--draw`, drawn with their labels.
enum DetectionPicture {
    /// Prints `boxes` (in `picture`'s pixels) and, when `drawPath` is given, writes `picture` with each
    /// box outlined in its class colour and labelled "name score" (or "class score") in `BitmapFont`.
    static func report(_ boxes: [PixelDetection], picture: RGBImage, drawPath: String?, console: Console) throws {
        let print = console.say
        print("boxes in image pixels (left, top, right, bottom) of \(picture.width)x\(picture.height):")
        for box in boxes.prefix(VerificationReport.printedBoxes) {
            print(String(format: "  %@  (%.1f, %.1f, %.1f, %.1f)", box.label, box.left, box.top, box.right, box.bottom))
        }
        if boxes.count > VerificationReport.printedBoxes { print("  ... \(boxes.count - VerificationReport.printedBoxes) more") }
        guard let drawPath else { return }
        var canvas = picture
        let scale = max(1, min(picture.width, picture.height) / 400)
        for box in boxes {
            BoxDrawing.rectangle(
                &canvas, left: box.left, top: box.top, right: box.right, bottom: box.bottom, color: BoxDrawing.color(for: box.classIndex))
        }
        // Labels after all outlines, so that no outline crosses a label; the strongest last, on top.
        for box in boxes.reversed() {
            BoxDrawing.label(&canvas, box.label, left: box.left, top: box.top, background: BoxDrawing.color(for: box.classIndex), scale: scale)
        }
        try ImageFile.writePNG(canvas, to: drawPath)
        print("drew \(boxes.count) boxes into \(drawPath)")
    }
}
