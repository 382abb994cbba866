/// A window of `channels` channels starting at input channel `offset`, zero where it leaves the input
/// (padding or slicing along the channel axis; TensorFlow's pad and strided slice on the channel axis):
///
///     out[c, y, x] = in[c + offset, y, x]   when 0 <= c + offset < C_in
///                  = 0                       otherwise,   for c in 0 ..< channels
///
/// The output is channels x H x W (channels >= 1). The slice [s, e) of the input's channels is offset s,
/// channels e - s; padding b zero channels before and a after is offset -b, channels C_in + b + a.
public struct ChannelRange: Sendable, Hashable {
    /// The input channel read by output channel 0 (negative: that many zero channels come first).
    public var offset: Int
    /// The number of output channels.
    public var channels: Int
    /// The window of `channels` channels from input channel `offset`.
    public init(offset: Int, channels: Int) {
        self.offset = offset
        self.channels = channels
    }
}
