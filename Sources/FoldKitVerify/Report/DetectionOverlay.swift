import FoldKitIO
import FoldKitImage
import Foundation

/// The checked image with the original network's final boxes, as inline SVG for the audit page: the
/// image (`AuditImage`, a `data:` URI) at its own pixel size in the view box, each box an outline in its
/// class colour (`BoxDrawing.color(for:)`, as `verify --draw` uses) with its label ("name score") on a
/// strip of that colour above the top-left corner (inside the box when it touches the top edge).
/// Outlines first, labels after them, the strongest box's label last (on top).
enum DetectionOverlay {
    static func svg(image: AuditImage, boxes: [PixelDetection]) -> String {
        let w = Double(image.width), h = Double(image.height)
        // Shown at least 480 and at most 960 CSS pixels wide; outlines 2 and labels 12 of those pixels.
        let shownWidth = min(max(w, 480), 960), perPixel = w / shownWidth
        let stroke = 2 * perPixel, fontSize = 12 * perPixel
        func f(_ v: Double) -> String { String(format: "%.1f", v) }
        func color(_ classIndex: Int) -> String {
            let (r, g, b) = BoxDrawing.color(for: classIndex)
            return String(format: "#%02x%02x%02x", r, g, b)
        }
        var svg: [String] = []
        svg.append(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"picture\" viewBox=\"0 0 \(image.width) \(image.height)\" width=\"\(f(shownWidth))\" height=\"\(f(shownWidth * h / max(w, 1)))\" role=\"img\" aria-label=\"the image with the original network's boxes\">"
        )
        svg.append(
            "<image style=\"image-rendering: pixelated\" href=\"\(image.dataURI)\" x=\"0\" y=\"0\" width=\"\(image.width)\" height=\"\(image.height)\"/>"
        )
        for box in boxes {
            svg.append(
                "<rect class=\"box\" x=\"\(f(box.left))\" y=\"\(f(box.top))\" width=\"\(f(max(box.right - box.left, 0)))\" height=\"\(f(max(box.bottom - box.top, 0)))\" fill=\"none\" stroke=\"\(color(box.classIndex))\" stroke-width=\"\(f(stroke))\"/>"
            )
        }
        for box in boxes.reversed() {
            let label = box.label
            let stripHeight = fontSize * 1.3, stripWidth = Double(label.count) * fontSize * 0.62 + fontSize * 0.4
            let stripTop = box.top - stripHeight >= 0 ? box.top - stripHeight : box.top
            svg.append(
                "<g class=\"label\"><rect x=\"\(f(box.left))\" y=\"\(f(stripTop))\" width=\"\(f(stripWidth))\" height=\"\(f(stripHeight))\" fill=\"\(color(box.classIndex))\"/>"
                    + "<text x=\"\(f(box.left + fontSize * 0.2))\" y=\"\(f(stripTop + fontSize))\" font-size=\"\(f(fontSize))\" font-family=\"monospace\" fill=\"#000\">\(XMLText.escape(label))</text></g>"
            )
        }
        svg.append("</svg>")
        return svg.joined(separator: "\n")
    }
}
