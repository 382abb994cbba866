/// Where the batch-norm epsilon is added.
///
/// - `insideSqrt`:  y = gamma * (x - mean) / sqrt(variance + epsilon) + beta
///   (AlexeyAB Darknet, pjreddie Darknet on GPU, OpenCV uses it with 1e-6, Keras)
/// - `outsideSqrt`: y = gamma * (x - mean) / (sqrt(variance) + epsilon) + beta  (pjreddie Darknet on CPU)
public enum EpsilonPlacement: String, CaseIterable, Sendable, Codable {
    case insideSqrt = "inside"
    case outsideSqrt = "outside"
}

/// The epsilon convention a reader sets on every batch norm it creates (data, not a comment).
public struct EpsilonConvention: Hashable, Sendable, Codable {
    public var epsilon: Double
    public var placement: EpsilonPlacement

    public init(epsilon: Double, placement: EpsilonPlacement) {
        self.epsilon = epsilon
        self.placement = placement
    }

    /// AlexeyAB Darknet: sqrt(var + 1e-5). FoldKit's default for Darknet files.
    public static let darknet = EpsilonConvention(epsilon: 1e-5, placement: .insideSqrt)

    /// The per-channel multiplier gamma / sqrt(var + eps) or gamma / (sqrt(var) + eps), in float64.
    public func scale(gamma: Double, variance: Double) -> Double {
        switch placement {
        case .insideSqrt: return gamma / (variance + epsilon).squareRoot()
        case .outsideSqrt: return gamma / (variance.squareRoot() + epsilon)
        }
    }
}

/// Inference-time batch normalisation over channels:
/// y[c] = gamma[c] * (x[c] - mean[c]) / denominator(variance[c]) + beta[c], with the denominator
/// given by `convention`. Missing gamma means 1 (Keras `scale=False`); missing beta means 0 (`center=False`).
public struct BatchNorm: Sendable {
    public var gamma: WeightTensor?
    public var beta: WeightTensor?
    public var mean: WeightTensor
    public var variance: WeightTensor
    public var convention: EpsilonConvention

    public init(gamma: WeightTensor?, beta: WeightTensor?, mean: WeightTensor, variance: WeightTensor, convention: EpsilonConvention) {
        self.gamma = gamma
        self.beta = beta
        self.mean = mean
        self.variance = variance
        self.convention = convention
    }

    public var channels: Int { mean.count }

    /// The folded per-channel affine map y = scale * x + shift, computed in float64.
    public func affine() throws -> (scale: [Double], shift: [Double]) {
        let n = channels
        let g = try gamma?.floats() ?? [Float](repeating: 1, count: n)
        let b = try beta?.floats() ?? [Float](repeating: 0, count: n)
        let m = try mean.floats()
        let v = try variance.floats()
        var scale = [Double](repeating: 0, count: n)
        var shift = [Double](repeating: 0, count: n)
        for c in 0..<n {
            scale[c] = convention.scale(gamma: Double(g[c]), variance: Double(v[c]))
            shift[c] = Double(b[c]) - Double(m[c]) * scale[c]
        }
        return (scale, shift)
    }

    public func materialized() throws -> BatchNorm {
        BatchNorm(
            gamma: try gamma?.materialized(), beta: try beta?.materialized(), mean: try mean.materialized(),
            variance: try variance.materialized(), convention: convention)
    }
}
