/// Inference-time batch normalisation over channels:
/// y[c] = gamma[c] * (x[c] - mean[c]) / denominator(variance[c]) + beta[c], with the denominator
/// given by `convention`. Missing gamma means 1 (Keras `scale=False`); missing beta means 0 (`center=False`).
public struct BatchNorm: Sendable {
    /// gamma[c]; nil means 1.
    public var gamma: WeightTensor?
    /// beta[c]; nil means 0.
    public var beta: WeightTensor?
    /// The running mean[c].
    public var mean: WeightTensor
    /// The running variance[c].
    public var variance: WeightTensor
    /// The epsilon and where it goes.
    public var convention: EpsilonConvention

    /// A batch norm of the given statistics.
    public init(gamma: WeightTensor?, beta: WeightTensor?, mean: WeightTensor, variance: WeightTensor, convention: EpsilonConvention) {
        self.gamma = gamma
        self.beta = beta
        self.mean = mean
        self.variance = variance
        self.convention = convention
    }

    /// C, the length of `mean`.
    public var channels: Int { mean.count }

    /// The folded per-channel affine map y = scale * x + shift, computed in float64; throws when gamma, beta,
    /// mean and variance do not all hold `channels` values.
    package func affine() throws -> (scale: [Double], shift: [Double]) {
        let n = channels
        let g = try gamma?.floats() ?? [Float](repeating: 1, count: n)
        let b = try beta?.floats() ?? [Float](repeating: 0, count: n)
        let m = try mean.floats()
        let v = try variance.floats()
        for (values, name) in [(g, "gamma"), (b, "beta"), (m, "mean"), (v, "variance")] where values.count != n {
            throw FoldKitError(.badInput, "batch norm size does not match the layer's outputs", expected: "\(n)", found: "\(values.count) (\(name))")
        }
        var scale = [Double](repeating: 0, count: n)
        var shift = [Double](repeating: 0, count: n)
        for c in 0..<n {
            scale[c] = convention.scale(gamma: Double(g[c]), variance: Double(v[c]))
            shift[c] = Double(b[c]) - Double(m[c]) * scale[c]
        }
        return (scale, shift)
    }

    /// The same batch norm with every tensor read into memory (file spans read now).
    public func materialized() throws -> BatchNorm {
        BatchNorm(
            gamma: try gamma?.materialized(), beta: try beta?.materialized(), mean: try mean.materialized(),
            variance: try variance.materialized(), convention: convention)
    }
}
