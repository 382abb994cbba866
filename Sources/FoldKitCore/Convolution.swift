/// 2-D convolution, optionally grouped or dilated, followed by bias, batch norm and an activation:
///
///     z[o,y,x] = sum_{i<I/g, ky, kx} W[o, i, ky, kx] * in[(o / (O/g))*(I/g) + i, y*sy - pt + ky*dy, x*sx - pl + kx*dx]
///     out = activation(batchNorm(z + bias))
///
/// Weights are OIHW: [outputChannels][inputChannels/groups][kernelHeight][kernelWidth]; padding is zeros.
/// After `FoldBatchNorm`, `batchNorm` is nil and the weights and bias carry it.
public struct Convolution: Sendable {
    public var inputChannels: Int
    public var outputChannels: Int
    public var kernelHeight: Int
    public var kernelWidth: Int
    public var strideY: Int
    public var strideX: Int
    public var dilationY: Int
    public var dilationX: Int
    public var padding: Padding2D
    public var groups: Int
    public var weights: WeightTensor
    public var bias: WeightTensor?
    public var batchNorm: BatchNorm?
    public var activation: Activation

    public init(
        inputChannels: Int, outputChannels: Int, kernelHeight: Int, kernelWidth: Int, strideY: Int = 1,
        strideX: Int = 1, dilationY: Int = 1, dilationX: Int = 1, padding: Padding2D = .zero, groups: Int = 1,
        weights: WeightTensor, bias: WeightTensor?, batchNorm: BatchNorm? = nil, activation: Activation = .linear
    ) {
        self.inputChannels = inputChannels
        self.outputChannels = outputChannels
        self.kernelHeight = kernelHeight
        self.kernelWidth = kernelWidth
        self.strideY = strideY
        self.strideX = strideX
        self.dilationY = dilationY
        self.dilationX = dilationX
        self.padding = padding
        self.groups = groups
        self.weights = weights
        self.bias = bias
        self.batchNorm = batchNorm
        self.activation = activation
    }

    /// Inputs read per output value: (inputChannels / groups) * kernelHeight * kernelWidth.
    public var accumulationLength: Int { inputChannels / groups * kernelHeight * kernelWidth }
}
