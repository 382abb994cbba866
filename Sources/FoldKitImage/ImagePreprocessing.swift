import FoldKitCore
import FoldKitDetection

/// Turns an RGB image into the network's channel-major input in [0, 1], and maps boxes back.
///
/// Resampling is bilinear with pixel centres aligned (source coordinate = (dst + 0.5) / scale - 0.5,
/// clamped at the edges), as OpenCV's INTER_LINEAR.
public struct ImagePreprocessing: Sendable {
    /// How the image is fitted to the input (stretch, letterbox, crop).
    public var mode: ResizeMode
    /// The channel order the network expects.
    public var channelOrder: ChannelOrder
    /// The scaled image's placement inside the network input: scale factors and offset in input pixels.
    public private(set) var scaleX: Double = 1
    /// Vertical scale factor, input pixels per image pixel.
    public private(set) var scaleY: Double = 1
    /// Left offset of the scaled image in the input, input pixels.
    public private(set) var offsetX: Double = 0
    /// Top offset of the scaled image in the input, input pixels.
    public private(set) var offsetY: Double = 0

    /// A preprocessing with the given fitting and channel order.
    public init(mode: ResizeMode, channelOrder: ChannelOrder) {
        self.mode = mode
        self.channelOrder = channelOrder
    }

    /// Channel-major floats of `shape` (channels must be 3, or 1 for grey = mean of RGB).
    public mutating func tensor(from image: RGBImage, shape: ActivationShape) throws -> [Float] {
        guard shape.channels == 3 || shape.channels == 1 else {
            throw FoldKitError(.usage, "images can feed only 1- or 3-channel inputs", found: "\(shape.channels) channels")
        }
        let (netW, netH) = (Double(shape.width), Double(shape.height))
        var letterboxWidth = shape.width, letterboxHeight = shape.height
        let (imgW, imgH) = (Double(image.width), Double(image.height))
        switch mode {
        case .stretch:
            scaleX = netW / imgW; scaleY = netH / imgH; offsetX = 0; offsetY = 0
        case .letterbox:
            let s = min(netW / imgW, netH / imgH)
            scaleX = s; scaleY = s
            // The scaled size in integers as darknet's letterbox_image (new_h = h * W / w): imgW * s can
            // round to just below a whole number (22 * (15/22) = 14.999...), which would leave a grey column.
            let widthLimited = netW / imgW < netH / imgH
            letterboxWidth = widthLimited ? shape.width : image.width * shape.height / image.height
            letterboxHeight = widthLimited ? image.height * shape.width / image.width : shape.height
            offsetX = Double((shape.width - letterboxWidth) / 2)
            offsetY = Double((shape.height - letterboxHeight) / 2)
        case .centerCrop:
            let s = max(netW / imgW, netH / imgH)
            scaleX = s; scaleY = s
            offsetX = (netW - imgW * s) / 2; offsetY = (netH - imgH * s) / 2
        }
        let plane = shape.height * shape.width
        var out = [Float](repeating: 0.5, count: shape.count)
        for y in 0..<shape.height {
            let sy = (Double(y) + 0.5 - offsetY) / scaleY - 0.5
            if mode == .letterbox && (Double(y) < offsetY || Double(y) >= offsetY + Double(letterboxHeight)) { continue }
            let y0 = Int(sy.rounded(.down)), fy = Float(sy - Double(y0))
            let ya = min(max(y0, 0), image.height - 1), yb = min(max(y0 + 1, 0), image.height - 1)
            for x in 0..<shape.width {
                let sx = (Double(x) + 0.5 - offsetX) / scaleX - 0.5
                if mode == .letterbox && (Double(x) < offsetX || Double(x) >= offsetX + Double(letterboxWidth)) { continue }
                let x0 = Int(sx.rounded(.down)), fx = Float(sx - Double(x0))
                let xa = min(max(x0, 0), image.width - 1), xb = min(max(x0 + 1, 0), image.width - 1)
                var rgb: [Float] = [0, 0, 0]
                for c in 0..<3 {
                    let p00 = Float(image.pixels[(ya * image.width + xa) * 3 + c]), p01 = Float(image.pixels[(ya * image.width + xb) * 3 + c])
                    let p10 = Float(image.pixels[(yb * image.width + xa) * 3 + c]), p11 = Float(image.pixels[(yb * image.width + xb) * 3 + c])
                    let top = p00 + (p01 - p00) * fx, bottom = p10 + (p11 - p10) * fx
                    rgb[c] = (top + (bottom - top) * fy) / 255
                }
                if shape.channels == 1 {
                    out[y * shape.width + x] = (rgb[0] + rgb[1] + rgb[2]) / 3
                } else {
                    let ordered = channelOrder == .rgb ? rgb : [rgb[2], rgb[1], rgb[0]]
                    for c in 0..<3 { out[c * plane + y * shape.width + x] = ordered[c] }
                }
            }
        }
        return out
    }

    /// Maps a box from normalised network-input coordinates to original-image pixels, undoing the
    /// letterbox padding or centre crop: image = (input * netSize - offset) / scale.
    public func imageBox(_ d: Detection, networkInput: ActivationShape) -> (left: Double, top: Double, right: Double, bottom: Double) {
        let cx = (Double(d.x) * Double(networkInput.width) - offsetX) / scaleX
        let cy = (Double(d.y) * Double(networkInput.height) - offsetY) / scaleY
        let w = Double(d.width) * Double(networkInput.width) / scaleX
        let h = Double(d.height) * Double(networkInput.height) / scaleY
        return (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)
    }
}
