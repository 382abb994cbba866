/// Softmax. `.perPixelChannels`: over channels at each (y, x) (Keras axis=-1).
/// `.flattened(groups:)`: over each of `groups` contiguous runs of the channel-major tensor (Darknet [softmax]).
public enum SoftmaxAxis: Sendable, Hashable {
    case perPixelChannels
    case flattened(groups: Int)
}
