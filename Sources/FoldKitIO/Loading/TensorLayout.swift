import FoldKitCore
import Foundation

/// Moves activations between channel-major (FoldKit's internal, NCHW) and other layouts.
enum TensorLayout {
    /// (y, x, c) at (y*W + x)*C + c  ->  (c, y, x) at (c*H + y)*W + x.
    static func hwcToCHW<T>(_ values: [T], shape: ActivationShape) -> [T] {
        let (c, h, w) = (shape.channels, shape.height, shape.width)
        guard let first = values.first else { return values }
        var out = [T](repeating: first, count: values.count)
        for y in 0..<h { for x in 0..<w { for ch in 0..<c { out[(ch * h + y) * w + x] = values[(y * w + x) * c + ch] } } }
        return out
    }

    /// (c, y, x) at (c*H + y)*W + x  ->  (y, x, c) at (y*W + x)*C + c.
    static func chwToHWC<T>(_ values: [T], shape: ActivationShape) -> [T] {
        let (c, h, w) = (shape.channels, shape.height, shape.width)
        guard let first = values.first else { return values }
        var out = [T](repeating: first, count: values.count)
        for ch in 0..<c { for y in 0..<h { for x in 0..<w { out[(y * w + x) * c + ch] = values[(ch * h + y) * w + x] } } }
        return out
    }

    /// MPSImage texture slices: S = ceil(C/4) slices of H x W pixels with 4 channels each;
    /// (c, y, x) goes to (c/4)*H*W*4 + y*W*4 + x*4 + c%4, the last slice zero-padded. C <= 2 is
    /// stored unpadded with C components per pixel: index (y*W + x)*C + c.
    /// Returns the values and the written shape ([S, H, W, 4], or [H, W, C] for C <= 2).
    static func chwToSliced(_ values: [Float], shape: ActivationShape) -> (values: [Float], shape: [Int]) {
        let (c, h, w) = (shape.channels, shape.height, shape.width)
        if c <= 2 { return (chwToHWC(values, shape: shape), [h, w, c]) }
        let slices = (c + 3) / 4
        var out = [Float](repeating: 0, count: slices * h * w * 4)
        for ch in 0..<c {
            for y in 0..<h {
                for x in 0..<w {
                    out[(ch / 4) * h * w * 4 + y * w * 4 + x * 4 + ch % 4] = values[(ch * h + y) * w + x]
                }
            }
        }
        return (out, [slices, h, w, 4])
    }

    /// The inverse of `chwToSliced`.
    static func slicedToCHW(_ values: [Float], shape: ActivationShape) -> [Float] {
        let (c, h, w) = (shape.channels, shape.height, shape.width)
        if c <= 2 { return hwcToCHW(values, shape: shape) }
        var out = [Float](repeating: 0, count: shape.count)
        for ch in 0..<c {
            for y in 0..<h {
                for x in 0..<w {
                    out[(ch * h + y) * w + x] = values[(ch / 4) * h * w * 4 + y * w * 4 + x * 4 + ch % 4]
                }
            }
        }
        return out
    }
}
