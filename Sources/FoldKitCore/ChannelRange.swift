/// A window of `channels` channels starting at input channel `offset`, zero where it leaves the input
/// (padding or slicing along the channel axis; TensorFlow's pad and strided slice on the channel axis):
///
///     out[c, y, x] = in[c + offset, y, x]   when 0 <= c + offset < C_in
///                  = 0                       otherwise,   for c in 0 ..< channels
///
/// The output is channels x H x W (channels >= 1). The slice [s, e) of the input's channels is offset s,
/// channels e - s; padding b zero channels before and a after is offset -b, channels C_in + b + a.
public struct ChannelRange: Sendable, Hashable, Codable {
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

extension ChannelRange: LayerOperation {
    public var layerKind: LayerKind { .channelRange(self) }

    /// "channel_pad" when the window only adds zero channels (offset <= 0 and offset + channels >= C_in),
    /// "channel_slice" when it only takes a sub-range (offset >= 0 and offset + channels <= C_in),
    /// "channel_range" otherwise.
    public func typeName(inputShapes: [ActivationShape]) -> String {
        guard let inputChannels = inputShapes.first?.channels else { return "channel_range" }
        if offset <= 0 && offset + channels >= inputChannels { return "channel_pad" }
        if offset >= 0 && offset + channels <= inputChannels { return "channel_slice" }
        return "channel_range"
    }

    /// `channels` channels (at least one) at the input's size.
    public func outputShape(for inputs: [ActivationShape]) throws -> ActivationShape {
        let first = inputs[0]
        try require(channels >= 1, "a channel window needs at least one channel", expected: ">= 1", found: "\(channels)")
        return ActivationShape(channels: channels, height: first.height, width: first.width)
    }

    public func describe(into description: inout LayerDescription) { description.channelOffset = offset }

    public var deviationCarry: DeviationCarry? { .unchanged }

    public var vectorRule: VectorRule { .whenInputsAre }
}

extension ChannelRange {
    /// The window against an input of `inputChannels`: the input channels it takes (empty when it takes
    /// none), and the zero channels before and after them.
    public func window(inputChannels: Int) -> (taken: Range<Int>, before: Int, after: Int) {
        let first = max(offset, 0), last = min(offset + channels, inputChannels)
        guard last > first else { return (first..<first, channels, 0) }
        let before = max(-offset, 0)
        return (first..<last, before, channels - before - (last - first))
    }
}
