/// Draws rectangle outlines into an RGB image (for `verify --draw`).
public enum BoxDrawing {
    /// A distinct colour per class index.
    public static func color(for classIndex: Int) -> (UInt8, UInt8, UInt8) {
        let palette: [(UInt8, UInt8, UInt8)] = [
            (230, 25, 75), (60, 180, 75), (255, 225, 25), (0, 130, 200), (245, 130, 48),
            (145, 30, 180), (70, 240, 240), (240, 50, 230), (210, 245, 60), (250, 190, 190),
        ]
        return palette[classIndex % palette.count]
    }

    /// Outlines (left, top)-(right, bottom) with `thickness` pixels, clipped to the image.
    public static func rectangle(
        _ image: inout RGBImage, left: Double, top: Double, right: Double, bottom: Double,
        color: (UInt8, UInt8, UInt8), thickness: Int = 2
    ) {
        let l = max(0, Int(left.rounded())), r = min(image.width - 1, Int(right.rounded()))
        let t = max(0, Int(top.rounded())), b = min(image.height - 1, Int(bottom.rounded()))
        guard l <= r, t <= b else { return }
        func set(_ x: Int, _ y: Int) {
            let i = (y * image.width + x) * 3
            image.pixels[i] = color.0
            image.pixels[i + 1] = color.1
            image.pixels[i + 2] = color.2
        }
        for k in 0..<thickness {
            for x in l...r {
                if t + k <= b { set(x, t + k) }
                if b - k >= t { set(x, b - k) }
            }
            for y in t...b {
                if l + k <= r { set(l + k, y) }
                if r - k >= l { set(r - k, y) }
            }
        }
    }
}

extension BoxDrawing {
    /// The text colour on a label of `background`: black on light colours, white on dark ones
    /// (luma 0.299 R + 0.587 G + 0.114 B against 128).
    package static func textColor(on background: (UInt8, UInt8, UInt8)) -> (UInt8, UInt8, UInt8) {
        0.299 * Double(background.0) + 0.587 * Double(background.1) + 0.114 * Double(background.2) >= 128 ? (0, 0, 0) : (255, 255, 255)
    }

    /// Writes `text` in `BitmapFont` at `scale` on a filled `background` strip whose bottom-left corner is
    /// the box's top-left corner (left, top); below it, inside the box, when there is no room above.
    /// Everything is clipped to the image.
    public static func label(
        _ image: inout RGBImage, _ text: String, left: Double, top: Double,
        background: (UInt8, UInt8, UInt8), scale: Int = 1
    ) {
        let padding = scale
        let stripWidth = BitmapFont.width(of: text, scale: scale) + 2 * padding
        let stripHeight = BitmapFont.glyphHeight * scale + 2 * padding
        let x0 = max(0, Int(left.rounded()))
        let boxTop = Int(top.rounded())
        let y0 = boxTop - stripHeight >= 0 ? boxTop - stripHeight : max(0, boxTop)
        func set(_ x: Int, _ y: Int, _ color: (UInt8, UInt8, UInt8)) {
            guard x >= 0, y >= 0, x < image.width, y < image.height else { return }
            let i = (y * image.width + x) * 3
            image.pixels[i] = color.0
            image.pixels[i + 1] = color.1
            image.pixels[i + 2] = color.2
        }
        for y in y0..<(y0 + stripHeight) { for x in x0..<(x0 + stripWidth) { set(x, y, background) } }
        let ink = textColor(on: background)
        for (n, character) in text.enumerated() {
            let glyphLeft = x0 + padding + n * BitmapFont.advance * scale
            for (row, bits) in BitmapFont.glyph(character).enumerated() {
                for column in 0..<BitmapFont.glyphWidth where bits & (0x10 >> column) != 0 {
                    for dy in 0..<scale { for dx in 0..<scale { set(glyphLeft + column * scale + dx, y0 + padding + row * scale + dy, ink) } }
                }
            }
        }
    }
}
