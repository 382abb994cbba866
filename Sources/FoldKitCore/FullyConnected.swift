/// Fully connected (Darknet [connected], Keras Dense): out[o] = activation(batchNorm(sum_i W[o,i] * in[i] + bias[o])).
/// Weights are [outputCount][inputCount]; the input is the flattened channel-major tensor.
public struct FullyConnected: Sendable, Codable {
    /// Inputs (the whole input tensor flattened).
    public var inputCount: Int
    /// Outputs.
    public var outputCount: Int
    /// [out, in].
    public var weights: WeightTensor
    /// [out]; nil means 0.
    public var bias: WeightTensor?
    /// The batch norm after the layer, folded by `FoldBatchNorm`.
    public var batchNorm: BatchNorm?
    /// Applied after bias and batch norm.
    public var activation: Activation

    /// A fully connected layer of the given parameters.
    public init(
        inputCount: Int, outputCount: Int, weights: WeightTensor, bias: WeightTensor?, batchNorm: BatchNorm? = nil, activation: Activation = .linear
    ) {
        self.inputCount = inputCount
        self.outputCount = outputCount
        self.weights = weights
        self.bias = bias
        self.batchNorm = batchNorm
        self.activation = activation
    }
}

extension FullyConnected: LayerOperation {
    /// The attached batch norm's epsilon convention.
    public var epsilonConvention: EpsilonConvention? { batchNorm?.convention }

    public var layerKind: LayerKind { .fullyConnected(self) }

    public func typeName(inputShapes: [ActivationShape]) -> String { "connected" }

    /// A vector of `outputCount`; the input must hold `inputCount` values.
    public func outputShape(for inputs: [ActivationShape]) throws -> ActivationShape {
        let first = inputs[0]
        try require(first.count == inputCount, "connected layer input size", expected: "\(inputCount)", found: "\(first.count) (\(first))")
        return .vector(outputCount)
    }

    public var parameters: [(role: TensorRole, tensor: WeightTensor)] {
        [(.weights, weights)] + (bias.map { [(.bias, $0)] } ?? []) + (batchNorm?.parameters ?? [])
    }

    public func mappingParameters(_ transform: (TensorRole, WeightTensor) throws -> WeightTensor) rethrows -> LayerKind {
        var copy = self
        copy.weights = try transform(.weights, weights)
        copy.bias = try bias.map { try transform(.bias, $0) }
        copy.batchNorm = try batchNorm?.mappingBatchNorm(transform)
        return .fullyConnected(copy)
    }

    public func parameterName(_ role: TensorRole) -> String { role == .weights ? "connected weights" : role.readableName }

    /// `W`: [out, C, H, W] over the input tensor (a vector input has H = W = 1), so the sliced and OHWI
    /// layouts order each row as the input's channels; `b`: [out], zeros without a bias.
    public var isFolded: Bool { batchNorm == nil }

    public func blobs(inputShapes: [ActivationShape], outputShape: ActivationShape) -> [BlobTensorPlan] {
        let input = inputShapes.first ?? .vector(inputCount)
        let spatial = input.count == inputCount ? input : .vector(inputCount)
        return [
            BlobTensorPlan(
                role: .weights, suffix: "W", tensor: weights,
                form: .weights(oihw: [outputCount, spatial.channels, spatial.height, spatial.width], depthwise: false)),
            BlobTensorPlan(role: .bias, suffix: "b", tensor: bias, form: .vector(shape: [outputCount])),
        ]
    }

    public var blobPrefix: String { "fc" }

    public func readingBlobs(_ values: (TensorRole) throws -> [Float]) throws -> LayerKind {
        var copy = self
        copy.weights = WeightTensor(shape: weights.shape, values: try values(.weights))
        copy.bias = WeightTensor(shape: [outputCount], values: try values(.bias))
        copy.batchNorm = nil  // folded into the blobs
        return .fullyConnected(copy)
    }

    public func describe(into description: inout LayerDescription) {
        description.activation = activation.name
        description.foldedBatchNorm = batchNorm != nil
    }

    public var finalActivation: Activation? { activation }

    public func accumulationLength(inputShapes: [ActivationShape], outputShape: ActivationShape) -> Int { inputCount }

    public var channelTensors: ChannelTensors? { ChannelTensors(weights: weights, bias: bias, rows: outputCount) }

    public var vectorRule: VectorRule { .always }
}
