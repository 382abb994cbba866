/// What a parameter tensor is to its layer. The raw values are the `role` strings of a blob folder's
/// `manifest.json` (Docs/BlobFormat.md, "manifest.json"), so encoding a role writes exactly that string.
///
/// - `weights`: a convolution's [O, I, kh, kw] kernel or a connected layer's [out, in] matrix
/// - `bias`: the layer's own per-output bias
/// - `scale`, `shift`: a per-channel affine y = scale * x + shift (an unfoldable batch norm)
/// - `alpha`: PReLU's negative slope, per channel or per element
/// - `gamma`, `beta`, `mean`, `variance`: an inference batch norm's parameters (`gamma` and `beta` also
///   a layer normalization's, the only ones a blob folder holds)
public enum TensorRole: String, CaseIterable, Sendable, Codable {
    case weights
    case bias
    case scale
    case shift
    case alpha
    case gamma = "bn_gamma"
    case beta = "bn_beta"
    case mean = "bn_mean"
    case variance = "bn_variance"

    /// The role as error messages name it ("batch-norm mean has the wrong number of values").
    public var readableName: String {
        switch self {
        case .weights, .bias, .scale, .shift: return rawValue
        case .alpha: return "prelu alpha"
        case .gamma: return "batch-norm gamma"
        case .beta: return "batch-norm beta"
        case .mean: return "batch-norm mean"
        case .variance: return "batch-norm variance"
        }
    }
}
