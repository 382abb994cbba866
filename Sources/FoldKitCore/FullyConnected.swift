/// Fully connected (Darknet [connected], Keras Dense): out[o] = activation(batchNorm(sum_i W[o,i] * in[i] + bias[o])).
/// Weights are [outputCount][inputCount]; the input is the flattened channel-major tensor.
public struct FullyConnected: Sendable {
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
