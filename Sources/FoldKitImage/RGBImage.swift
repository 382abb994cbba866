/// An 8-bit RGB image, pixels row by row, 3 bytes each: (y*width + x)*3 + {0: R, 1: G, 2: B}.
public struct RGBImage: Sendable, Equatable {
    /// Width in pixels.
    public var width: Int
    /// Height in pixels.
    public var height: Int
    /// Row-major R, G, B bytes: pixel (x, y) at 3*(y*width + x).
    public var pixels: [UInt8]

    /// An image of the given pixels (3*width*height bytes).
    public init(width: Int, height: Int, pixels: [UInt8]) {
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// An image of one colour.
    public init(width: Int, height: Int, fill: (UInt8, UInt8, UInt8) = (0, 0, 0)) {
        self.width = width
        self.height = height
        self.pixels = [UInt8](repeating: 0, count: width * height * 3)
        for i in 0..<(width * height) {
            pixels[3 * i] = fill.0
            pixels[3 * i + 1] = fill.1
            pixels[3 * i + 2] = fill.2
        }
    }
}
