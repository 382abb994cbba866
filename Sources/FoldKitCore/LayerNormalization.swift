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

extension LayerNormalization: GammaBetaNormalization {
    public var operationName: String { "layer normalization" }
    public var parameterPrefix: String { "layer-norm" }

    public var layerKind: LayerKind { .layerNormalization(self) }

    public func typeName(inputShapes: [ActivationShape]) -> String { "layernorm" }

    /// The input's shape; gamma and beta (when present) one value per channel, epsilon finite and >= 0.
    public func outputShape(for inputs: [ActivationShape]) throws -> ActivationShape {
        let first = inputs[0]
        try checkGammaBetaAndEpsilon(channels: first.channels)
        return first
    }

    public func mappingParameters(_ transform: (TensorRole, WeightTensor) throws -> WeightTensor) rethrows -> LayerKind {
        .layerNormalization(try mappingGammaBeta(transform))
    }

    public var blobPrefix: String { "layernorm" }

    public func readingBlobs(_ values: (TensorRole) throws -> [Float]) throws -> LayerKind {
        .layerNormalization(try readingGammaBeta(values))
    }

    public func describe(into description: inout LayerDescription) { description.epsilon = epsilon }

    public func accumulationLength(inputShapes: [ActivationShape], outputShape: ActivationShape) -> Int { outputShape.channels }

    public var vectorRule: VectorRule { .whenInputsAre }
}
