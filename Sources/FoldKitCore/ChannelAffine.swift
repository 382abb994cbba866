/// A per-channel affine map y[c] = scale[c] * x[c] + shift[c]: an unfoldable batch norm after folding.
public struct ChannelAffine: Sendable {
    public var scale: WeightTensor
    public var shift: WeightTensor
    public init(scale: WeightTensor, shift: WeightTensor) {
        self.scale = scale
        self.shift = shift
    }
}
