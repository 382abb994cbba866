/// Softmax. `.perPixelChannels`: over channels at each (y, x) (Keras axis=-1).
/// `.flattened(groups:temperature:)`: over each of `groups` contiguous runs of the channel-major tensor
/// (Darknet [softmax]), of x / temperature as darknet's `softmax` computes it:
/// y_i = exp(x_i / T - max / T) / sum_j exp(x_j / T - max / T).
public enum SoftmaxAxis: Sendable, Hashable {
    /// Over the channels at each (y, x) (Keras axis -1).
    case perPixelChannels
    /// Over each of `groups` contiguous runs, of x / temperature.
    case flattened(groups: Int, temperature: Float = 1)

    /// The temperature T the inputs are divided by (1 for `.perPixelChannels`).
    public var temperature: Float {
        if case .flattened(_, let temperature) = self { return temperature }
        return 1
    }
}
