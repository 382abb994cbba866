/// The shape of one activation tensor for a batch of one, always stored channel-major:
/// element (c, y, x) of a `channels x height x width` tensor is at `c*height*width + y*width + x`.
/// Readers of channels-last formats (Keras) convert at the edges; layers inside never see NHWC.
public struct ActivationShape: Hashable, Sendable, CustomStringConvertible, Codable {
    /// C.
    public var channels: Int
    /// H.
    public var height: Int
    /// W.
    public var width: Int

    /// A C x H x W activation.
    public init(channels: Int, height: Int, width: Int) {
        self.channels = channels
        self.height = height
        self.width = width
    }

    /// A flat vector of `count` values, stored as `count x 1 x 1`.
    public static func vector(_ count: Int) -> ActivationShape {
        ActivationShape(channels: count, height: 1, width: 1)
    }

    /// C*H*W elements.
    public var count: Int { channels * height * width }
    /// H*W elements of one channel.
    public var planeSize: Int { height * width }
    /// "CxHxW".
    public var description: String { "\(channels)x\(height)x\(width)" }
}
