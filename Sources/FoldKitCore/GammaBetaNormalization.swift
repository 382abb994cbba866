/// A normalization that ends in an optional per-channel affine, out = normalized * gamma[c] + beta[c], with
/// epsilon added to the variance under the square root (`LayerNormalization`, `GroupNormalization`): what
/// the two share of their declaration - the parameters, their names and blobs, the epsilon convention, the
/// per-channel tensors - is written here once. A missing gamma means 1, a missing beta 0.
public protocol GammaBetaNormalization: LayerOperation {
    /// gamma[c]; nil means 1.
    var gamma: WeightTensor? { get set }
    /// beta[c]; nil means 0.
    var beta: WeightTensor? { get set }
    /// Added to the variance under the square root.
    var epsilon: Double { get }
    /// How messages name the operation ("layer normalization").
    var operationName: String { get }
    /// How parameter names begin ("layer-norm": "layer-norm gamma").
    var parameterPrefix: String { get }
}

extension GammaBetaNormalization {
    /// Epsilon inside the square root: 1 / sqrt(variance + epsilon).
    public var epsilonConvention: EpsilonConvention? { EpsilonConvention(epsilon: epsilon, placement: .insideSqrt) }

    public var parameters: [(role: TensorRole, tensor: WeightTensor)] {
        (gamma.map { [(.gamma, $0)] } ?? []) + (beta.map { [(.beta, $0)] } ?? [])
    }

    public func parameterName(_ role: TensorRole) -> String {
        switch role {
        case .gamma: return "\(parameterPrefix) gamma"
        case .beta: return "\(parameterPrefix) beta"
        default: return role.readableName
        }
    }

    /// `gamma` and `beta`, vectors of the channel count (ones and zeros for a missing one).
    public func blobs(inputShapes: [ActivationShape], outputShape: ActivationShape) -> [BlobTensorPlan] {
        let channels = outputShape.channels
        return [
            BlobTensorPlan(role: .gamma, suffix: "gamma", tensor: gamma, fill: 1, form: .vector(shape: [channels])),
            BlobTensorPlan(role: .beta, suffix: "beta", tensor: beta, fill: 0, form: .vector(shape: [channels])),
        ]
    }

    public var channelTensors: ChannelTensors? { ChannelTensors(weights: gamma, bias: beta, rows: gamma?.count ?? 0) }

    /// Gamma and beta (when present) one value per channel of an input of `channels`, epsilon finite and >= 0.
    func checkGammaBetaAndEpsilon(channels: Int) throws {
        for case (let tensor?, let name) in [(gamma, "gamma"), (beta, "beta")] {
            try require(tensor.count == channels, "\(operationName) \(name) size", expected: "\(channels)", found: "\(tensor.count)")
        }
        try require(epsilon.isFinite && epsilon >= 0, "\(operationName) epsilon must be finite and at least 0", found: "\(epsilon)")
    }

    /// This normalization with gamma and beta (when present) transformed.
    func mappingGammaBeta(_ transform: (TensorRole, WeightTensor) throws -> WeightTensor) rethrows -> Self {
        var copy = self
        copy.gamma = try gamma.map { try transform(.gamma, $0) }
        copy.beta = try beta.map { try transform(.beta, $0) }
        return copy
    }

    /// This normalization with gamma and beta read from blob values (written with ones and zeros for a
    /// missing one, read back with both present).
    func readingGammaBeta(_ values: (TensorRole) throws -> [Float]) throws -> Self {
        var copy = self
        let gammaValues = try values(.gamma)
        copy.gamma = WeightTensor(shape: [gammaValues.count], values: gammaValues)
        let betaValues = try values(.beta)
        copy.beta = WeightTensor(shape: [betaValues.count], values: betaValues)
        return copy
    }
}
