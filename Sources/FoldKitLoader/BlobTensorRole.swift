/// What a blob is to its layer: manifest.json's `role` (Docs/BlobFormat.md).
public enum BlobTensorRole: String, CaseIterable, Codable, Sendable {
    /// A convolution's or fully connected layer's weights, 4-D in the tensor's `layout`.
    case weights
    /// The per-output bias [O] (batch norm folded in).
    case bias
    /// An unfoldable batch norm's per-channel y = scale * x + shift: the scale [C].
    case scale
    /// The shift [C] of that affine.
    case shift
    /// PReLU's negative slope, [C] or [C, H, W].
    case alpha
}
