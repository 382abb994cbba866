/// Layer normalization over the channels (Keras LayerNormalization on the channel axis), at every
/// position (y, x) on its own, over the C values x_c = in[c, y, x]:
///
///     mean     = (1/C) sum_c x_c
///     variance = (1/C) sum_c (x_c - mean)^2                 (biased; the mean computed first)
///     out[c, y, x] = (x_c - mean) / sqrt(variance + epsilon) * gamma[c] + beta[c]
///
/// gamma and beta are [C] vectors; a missing gamma means 1 (Keras `scale=False`), a missing beta 0
/// (`center=False`). A vector (C x 1 x 1, Keras' rank-2 tensors) is normalized as a whole. Unlike a batch
/// norm, the statistics come from the input itself, so it never folds into a neighbouring layer.
public struct LayerNormalization: Sendable, Codable {
    /// gamma[c]; nil means 1.
    public var gamma: WeightTensor?
    /// beta[c]; nil means 0.
    public var beta: WeightTensor?
    /// Added to the variance under the square root.
    public var epsilon: Double
    /// A layer normalization with the given parameters.
    public init(gamma: WeightTensor?, beta: WeightTensor?, epsilon: Double) {
        self.gamma = gamma
        self.beta = beta
        self.epsilon = epsilon
    }
}

extension LayerNormalization: LayerOperation {
    /// Epsilon inside the square root: 1 / sqrt(variance + epsilon).
    public var epsilonConvention: EpsilonConvention? { EpsilonConvention(epsilon: epsilon, placement: .insideSqrt) }

    public var layerKind: LayerKind { .layerNormalization(self) }

    public func typeName(inputShapes: [ActivationShape]) -> String { "layernorm" }

    /// The input's shape; gamma and beta (when present) one value per channel, epsilon finite and >= 0.
    public func outputShape(for inputs: [ActivationShape]) throws -> ActivationShape {
        let first = inputs[0]
        for case (let tensor?, let name) in [(gamma, "gamma"), (beta, "beta")] {
            try require(tensor.count == first.channels, "layer normalization \(name) size", expected: "\(first.channels)", found: "\(tensor.count)")
        }
        try require(epsilon.isFinite && epsilon >= 0, "layer normalization epsilon must be finite and at least 0", found: "\(epsilon)")
        return first
    }

    public var parameters: [(role: TensorRole, tensor: WeightTensor)] {
        (gamma.map { [(.gamma, $0)] } ?? []) + (beta.map { [(.beta, $0)] } ?? [])
    }

    public func mappingParameters(_ transform: (TensorRole, WeightTensor) throws -> WeightTensor) rethrows -> LayerKind {
        var copy = self
        copy.gamma = try gamma.map { try transform(.gamma, $0) }
        copy.beta = try beta.map { try transform(.beta, $0) }
        return .layerNormalization(copy)
    }

    public func parameterName(_ role: TensorRole) -> String {
        switch role {
        case .gamma: return "layer-norm gamma"
        case .beta: return "layer-norm beta"
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

    public var blobPrefix: String { "layernorm" }

    /// Written with ones and zeros for a missing gamma and beta, read back with both present.
    public func readingBlobs(_ values: (TensorRole) throws -> [Float]) throws -> LayerKind {
        var copy = self
        let gammaValues = try values(.gamma)
        copy.gamma = WeightTensor(shape: [gammaValues.count], values: gammaValues)
        let betaValues = try values(.beta)
        copy.beta = WeightTensor(shape: [betaValues.count], values: betaValues)
        return .layerNormalization(copy)
    }

    public func describe(into description: inout LayerDescription) { description.epsilon = epsilon }

    public func accumulationLength(inputShapes: [ActivationShape], outputShape: ActivationShape) -> Int { outputShape.channels }

    public var channelTensors: ChannelTensors? { ChannelTensors(weights: gamma, bias: beta, rows: gamma?.count ?? 0) }

    public var vectorRule: VectorRule { .whenInputsAre }
}
