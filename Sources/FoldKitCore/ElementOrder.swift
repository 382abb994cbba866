/// The order in which elements of a C x H x W tensor are laid out when it is flattened or reshaped.
public enum ElementOrder: String, Hashable, Sendable, Codable {
    /// Channel-major (Darknet, PyTorch, NCHW): index = (c*H + y)*W + x.
    case channelsFirst
    /// Channel-minor (Keras/TensorFlow, NHWC): index = (y*W + x)*C + c.
    case channelsLast
}
