import FoldKitDetection
import Foundation

/// A final detection (after NMS) as a consumer draws it: clipped to the image, in the pixels of the
/// original image (the letterbox or crop undone; the network input's pixels when there is no image):
/// 0 <= left <= right <= image width, 0 <= top <= bottom <= image height.
public struct PixelDetection: Codable, Equatable, Sendable {
    /// The class with the highest score.
    public var classIndex: Int
    /// From the names file, when there is one.
    public var className: String?
    /// objectness x class probability
    public var score: Float
    /// Left edge, image pixels.
    public var left: Double
    /// Top edge, image pixels.
    public var top: Double
    /// Right edge, image pixels.
    public var right: Double
    /// Bottom edge, image pixels.
    public var bottom: Double

    /// `box` mapped to the image of `frame` and clipped to it, named from `classNames` if given.
    public init(_ box: Detection, frame: ImageFrame, classNames: [String]?) {
        classIndex = box.classIndex
        className = classNames.flatMap { box.classIndex >= 0 && box.classIndex < $0.count ? $0[box.classIndex] : nil }
        score = box.score
        // The box is already clipped to the image; clamping again in pixels removes float32 rounding (8.0000002).
        let p = frame.pixels(box)
        let width = Double(frame.imageWidth), height = Double(frame.imageHeight)
        left = min(max(p.left, 0), width)
        right = min(max(p.right, 0), width)
        top = min(max(p.top, 0), height)
        bottom = min(max(p.bottom, 0), height)
    }

    /// "dog 0.93", or "16 0.93" without names.
    public var label: String {
        "\(className ?? String(classIndex)) \(String(format: "%.2f", Double(score)))"
    }
}
