/// Group normalization over the channels (Keras GroupNormalization on the channel axis): the C channels
/// are split into `groups` contiguous groups of n = C / groups channels, and group g of the C x H x W
/// tensor, the n * H * W values x = in[c, y, x] with g * n <= c < (g + 1) * n, is normalized on its own:
///
///     mean[g]     = (1 / (n H W)) sum_{c in g, y, x} in[c, y, x]
///     variance[g] = (1 / (n H W)) sum_{c in g, y, x} (in[c, y, x] - mean[g])^2   (biased; the mean first)
///     out[c, y, x] = (in[c, y, x] - mean[g]) / sqrt(variance[g] + epsilon) * gamma[c] + beta[c]
///
/// gamma and beta are [C] vectors; a missing gamma means 1 (Keras `scale=False`), a missing beta 0
/// (`center=False`). One group is a layer normalization over the whole map, C groups an instance
/// normalization. As with `LayerNormalization` the statistics come from the input itself, so it never
/// folds into a neighbouring layer.
public struct GroupNormalization: Sendable, Codable {
    /// The number of contiguous channel groups; divides the channel count.
    public var groups: Int
    /// gamma[c]; nil means 1.
    public var gamma: WeightTensor?
    /// beta[c]; nil means 0.
    public var beta: WeightTensor?
    /// Added to the variance under the square root.
    public var epsilon: Double
    /// A group normalization with the given parameters.
    public init(groups: Int, gamma: WeightTensor?, beta: WeightTensor?, epsilon: Double) {
        self.groups = groups
        self.gamma = gamma
        self.beta = beta
        self.epsilon = epsilon
    }
}

extension GroupNormalization: LayerOperation {
    /// Epsilon inside the square root: 1 / sqrt(variance + epsilon).
    public var epsilonConvention: EpsilonConvention? { EpsilonConvention(epsilon: epsilon, placement: .insideSqrt) }

    public var layerKind: LayerKind { .groupNormalization(self) }

    public func typeName(inputShapes: [ActivationShape]) -> String { "groupnorm" }

    /// The input's shape; groups at least 1 and dividing the channels, gamma and beta (when present) one
    /// value per channel, epsilon finite and >= 0.
    public func outputShape(for inputs: [ActivationShape]) throws -> ActivationShape {
        let first = inputs[0]
        try require(
            groups >= 1 && first.channels % groups == 0, "group normalization groups must divide the channels",
            expected: "a divisor of \(first.channels)", found: "\(groups)")
        for case (let tensor?, let name) in [(gamma, "gamma"), (beta, "beta")] {
            try require(tensor.count == first.channels, "group normalization \(name) size", expected: "\(first.channels)", found: "\(tensor.count)")
        }
        try require(epsilon.isFinite && epsilon >= 0, "group normalization epsilon must be finite and at least 0", found: "\(epsilon)")
        return first
    }

    public var parameters: [(role: TensorRole, tensor: WeightTensor)] {
        (gamma.map { [(.gamma, $0)] } ?? []) + (beta.map { [(.beta, $0)] } ?? [])
    }

    public func mappingParameters(_ transform: (TensorRole, WeightTensor) throws -> WeightTensor) rethrows -> LayerKind {
        var copy = self
        copy.gamma = try gamma.map { try transform(.gamma, $0) }
        copy.beta = try beta.map { try transform(.beta, $0) }
        return .groupNormalization(copy)
    }

    public func parameterName(_ role: TensorRole) -> String {
        switch role {
        case .gamma: return "group-norm gamma"
        case .beta: return "group-norm beta"
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

    public var blobPrefix: String { "groupnorm" }

    /// Written with ones and zeros for a missing gamma and beta, read back with both present (the groups
    /// from the model).
    public func readingBlobs(_ values: (TensorRole) throws -> [Float]) throws -> LayerKind {
        var copy = self
        let gammaValues = try values(.gamma)
        copy.gamma = WeightTensor(shape: [gammaValues.count], values: gammaValues)
        let betaValues = try values(.beta)
        copy.beta = WeightTensor(shape: [betaValues.count], values: betaValues)
        return .groupNormalization(copy)
    }

    /// The groups and the epsilon.
    public func describe(into description: inout LayerDescription) {
        description.groups = groups
        description.epsilon = epsilon
    }

    /// n * H * W terms in each group's mean and variance.
    public func accumulationLength(inputShapes: [ActivationShape], outputShape: ActivationShape) -> Int {
        outputShape.channels / max(groups, 1) * outputShape.planeSize
    }

    public var channelTensors: ChannelTensors? { ChannelTensors(weights: gamma, bias: beta, rows: gamma?.count ?? 0) }
}
