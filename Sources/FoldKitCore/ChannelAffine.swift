/// A per-channel affine map y[c] = scale[c] * x[c] + shift[c]: an unfoldable batch norm after folding.
public struct ChannelAffine: Sendable {
    /// scale[c] (or per element), multiplying the input.
    public var scale: WeightTensor
    /// shift[c] (or per element), added after.
    public var shift: WeightTensor
    /// y = scale * x + shift.
    public init(scale: WeightTensor, shift: WeightTensor) {
        self.scale = scale
        self.shift = shift
    }
}
