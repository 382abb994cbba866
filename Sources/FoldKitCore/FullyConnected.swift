/// Fully connected (Darknet [connected], Keras Dense): out[o] = activation(batchNorm(sum_i W[o,i] * in[i] + bias[o])).
/// Weights are [outputCount][inputCount]; the input is the flattened channel-major tensor.
public struct FullyConnected: Sendable {
    public var inputCount: Int
    public var outputCount: Int
    public var weights: WeightTensor
    public var bias: WeightTensor?
    public var batchNorm: BatchNorm?
    public var activation: Activation

    public init(inputCount: Int, outputCount: Int, weights: WeightTensor, bias: WeightTensor?, batchNorm: BatchNorm? = nil, activation: Activation = .linear) {
        self.inputCount = inputCount
        self.outputCount = outputCount
        self.weights = weights
        self.bias = bias
        self.batchNorm = batchNorm
        self.activation = activation
    }
}
