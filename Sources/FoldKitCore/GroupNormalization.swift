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

extension GroupNormalization: GammaBetaNormalization {
    public var operationName: String { "group normalization" }
    public var parameterPrefix: String { "group-norm" }

    public var layerKind: LayerKind { .groupNormalization(self) }

    public func typeName(inputShapes: [ActivationShape]) -> String { "groupnorm" }

    /// The input's shape; groups at least 1 and dividing the channels, gamma and beta (when present) one
    /// value per channel, epsilon finite and >= 0.
    public func outputShape(for inputs: [ActivationShape]) throws -> ActivationShape {
        let first = inputs[0]
        try require(
            groups >= 1 && first.channels % groups == 0, "group normalization groups must divide the channels",
            expected: "a divisor of \(first.channels)", found: "\(groups)")
        try checkGammaBetaAndEpsilon(channels: first.channels)
        return first
    }

    public func mappingParameters(_ transform: (TensorRole, WeightTensor) throws -> WeightTensor) rethrows -> LayerKind {
        .groupNormalization(try mappingGammaBeta(transform))
    }

    public var blobPrefix: String { "groupnorm" }

    public func readingBlobs(_ values: (TensorRole) throws -> [Float]) throws -> LayerKind {
        .groupNormalization(try readingGammaBeta(values))
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
}
