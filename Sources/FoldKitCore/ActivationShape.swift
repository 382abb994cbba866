/// The shape of one activation tensor for a batch of one, always stored channel-major:
/// element (c, y, x) of a `channels x height x width` tensor is at `c*height*width + y*width + x`.
/// Readers of channels-last formats (Keras) convert at the edges; layers inside never see NHWC.
public struct ActivationShape: Hashable, Sendable, CustomStringConvertible, Codable {
    public var channels: Int
    public var height: Int
    public var width: Int

    public init(channels: Int, height: Int, width: Int) {
        self.channels = channels
        self.height = height
        self.width = width
    }

    /// A flat vector of `count` values, stored as `count x 1 x 1`.
    public static func vector(_ count: Int) -> ActivationShape {
        ActivationShape(channels: count, height: 1, width: 1)
    }

    public var count: Int { channels * height * width }
    public var planeSize: Int { height * width }
    public var description: String { "\(channels)x\(height)x\(width)" }
}

/// Zero or -infinity padding around a feature map, in pixels per side.
public struct Padding2D: Hashable, Sendable, Codable {
    public var top: Int
    public var left: Int
    public var bottom: Int
    public var right: Int

    public init(top: Int, left: Int, bottom: Int, right: Int) {
        self.top = top
        self.left = left
        self.bottom = bottom
        self.right = right
    }

    public static let zero = Padding2D(top: 0, left: 0, bottom: 0, right: 0)

    /// The same padding on every side.
    public static func uniform(_ p: Int) -> Padding2D { Padding2D(top: p, left: p, bottom: p, right: p) }
}

/// The order in which elements of a C x H x W tensor are laid out when it is flattened or reshaped.
public enum ElementOrder: String, Hashable, Sendable, Codable {
    /// Channel-major (Darknet, PyTorch, NCHW): index = (c*H + y)*W + x.
    case channelsFirst
    /// Channel-minor (Keras/TensorFlow, NHWC): index = (y*W + x)*C + c.
    case channelsLast
}
