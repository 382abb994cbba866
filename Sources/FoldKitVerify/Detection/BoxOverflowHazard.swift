/// A detection-head channel whose value makes a decoded box non-finite in float32: `exp(tw)` (or
/// `exp(th)`) overflows for tw > ln(Float.greatestFiniteMagnitude) = 88.72, and a NaN or infinite value
/// of any coordinate channel gives a NaN or infinite box. Such boxes are not compared (an infinite box
/// has no IoU); they are reported here, one entry per head layer and channel.
public struct BoxOverflowHazard: Codable, Equatable, Sendable {
    /// Which network's head: "candidate" (folded) or "reference" (original).
    public var network: String
    /// Index of the head layer.
    public var layer: Int
    /// Channel of the head's output (anchor slot x (5 + classes) + 0...3 for tx, ty, tw, th; [Gaussian_yolo]:
    /// anchor slot x (9 + classes) + 0, 2, 4, 6).
    public var channel: Int
    /// The head's value with the largest magnitude among the boxes this channel made non-finite.
    public var value: Float
    /// How many boxes above the threshold this channel made non-finite.
    public var boxes: Int

    /// A head channel of `layer` in `network` whose raw `value` made `boxes` boxes non-finite.
    public init(network: String, layer: Int, channel: Int, value: Float, boxes: Int) {
        self.network = network
        self.layer = layer
        self.channel = channel
        self.value = value
        self.boxes = boxes
    }

    /// The hazard as one line for a report.
    public var text: String {
        "\(network) layer \(layer) channel \(channel): value \(value) gives a non-finite box in float32 (\(boxes) box\(boxes == 1 ? "" : "es"))"
    }
}
