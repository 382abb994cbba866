import FoldKitCore
import FoldKitDetection
import FoldKitIO
import FoldKitImage

/// Where the original image lies in the network input: boxes are clipped to it and mapped to its pixels,
/// as a consumer does (Darknet's `correct_yolo_boxes` undoes the letterbox, `draw_detections` clips to
/// the image).
///
/// A box in normalised network-input coordinates (fractions of the input's width and height) maps to
/// image pixels by
///
///     pixelX = (x * networkWidth - offsetX) / scaleX,   pixelY = (y * networkHeight - offsetY) / scaleY
///
/// and the image covers, in normalised input coordinates,
///
///     [offsetX / networkWidth, (offsetX + imageWidth * scaleX) / networkWidth]   (and likewise in y)
///
/// which is [0, 1] for a stretched image or no image, the letterboxed strip inside the padding, and more
/// than [0, 1] for a centre crop.
public struct ImageFrame: Codable, Equatable, Sendable {
    /// The original image's width in pixels.
    public var imageWidth: Int
    /// The original image's height in pixels.
    public var imageHeight: Int
    /// The network input's width.
    public var networkWidth: Int
    /// The network input's height.
    public var networkHeight: Int
    /// Input pixels per image pixel, horizontally.
    public var scaleX: Double
    /// Input pixels per image pixel, vertically.
    public var scaleY: Double
    /// Where the image's left edge lies in the input, input pixels (negative for a crop).
    public var offsetX: Double
    /// Where the image's top edge lies in the input, input pixels.
    public var offsetY: Double

    /// No image: the frame is the network input itself, pixels are input pixels.
    public init(networkInput: ActivationShape) {
        self.init(
            imageWidth: networkInput.width, imageHeight: networkInput.height, networkInput: networkInput,
            scaleX: 1, scaleY: 1, offsetX: 0, offsetY: 0)
    }

    /// The image of `imageWidth` x `imageHeight` placed in the input as `preprocessing` placed it (after
    /// its `tensor(from:shape:)` ran).
    public init(imageWidth: Int, imageHeight: Int, preprocessing: ImagePreprocessing, networkInput: ActivationShape) {
        self.init(
            imageWidth: imageWidth, imageHeight: imageHeight, networkInput: networkInput,
            scaleX: preprocessing.scaleX, scaleY: preprocessing.scaleY, offsetX: preprocessing.offsetX, offsetY: preprocessing.offsetY)
    }

    /// An image placed in the input by the given scale and offset (the mapping above).
    public init(imageWidth: Int, imageHeight: Int, networkInput: ActivationShape, scaleX: Double, scaleY: Double, offsetX: Double, offsetY: Double) {
        self.imageWidth = imageWidth
        self.imageHeight = imageHeight
        networkWidth = networkInput.width
        networkHeight = networkInput.height
        self.scaleX = scaleX
        self.scaleY = scaleY
        self.offsetX = offsetX
        self.offsetY = offsetY
    }

    /// The image's extent in normalised network-input coordinates.
    public var normalisedBounds: (left: Float, top: Float, right: Float, bottom: Float) {
        (
            Float(offsetX / Double(networkWidth)), Float(offsetY / Double(networkHeight)),
            Float((offsetX + Double(imageWidth) * scaleX) / Double(networkWidth)),
            Float((offsetY + Double(imageHeight) * scaleY) / Double(networkHeight))
        )
    }

    /// `box` with its edges clamped to the image's extent (an infinite side becomes the image's edge).
    /// Geometry with a NaN stays NaN: such a box cannot be drawn (see `Detection.hasFiniteGeometry`).
    public func clip(_ box: Detection) -> Detection {
        let bounds = normalisedBounds
        func clamp(_ v: Float, _ low: Float, _ high: Float) -> Float { v.isNaN ? v : Swift.min(Swift.max(v, low), high) }
        let left = clamp(box.x - box.width / 2, bounds.left, bounds.right), right = clamp(box.x + box.width / 2, bounds.left, bounds.right)
        let top = clamp(box.y - box.height / 2, bounds.top, bounds.bottom), bottom = clamp(box.y + box.height / 2, bounds.top, bounds.bottom)
        var clipped = box
        clipped.x = (left + right) / 2
        clipped.y = (top + bottom) / 2
        clipped.width = right - left
        clipped.height = bottom - top
        return clipped
    }

    /// `box` (normalised network-input coordinates) in image pixels: (left, top, right, bottom).
    public func pixels(_ box: Detection) -> (left: Double, top: Double, right: Double, bottom: Double) {
        let cx = (Double(box.x) * Double(networkWidth) - offsetX) / scaleX
        let cy = (Double(box.y) * Double(networkHeight) - offsetY) / scaleY
        let w = Double(box.width) * Double(networkWidth) / scaleX
        let h = Double(box.height) * Double(networkHeight) / scaleY
        return (cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2)
    }
}
