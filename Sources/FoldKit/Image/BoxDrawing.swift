/// Draws rectangle outlines into an RGB image (for `verify --draw`).
public enum BoxDrawing {
    /// A distinct colour per class index.
    public static func color(for classIndex: Int) -> (UInt8, UInt8, UInt8) {
        let palette: [(UInt8, UInt8, UInt8)] = [(230, 25, 75), (60, 180, 75), (255, 225, 25), (0, 130, 200), (245, 130, 48),
                                                (145, 30, 180), (70, 240, 240), (240, 50, 230), (210, 245, 60), (250, 190, 190)]
        return palette[classIndex % palette.count]
    }

    /// Outlines (left, top)-(right, bottom) with `thickness` pixels, clipped to the image.
    public static func rectangle(_ image: inout RGBImage, left: Double, top: Double, right: Double, bottom: Double,
                                 color: (UInt8, UInt8, UInt8), thickness: Int = 2) {
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
