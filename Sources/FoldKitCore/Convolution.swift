/// 2-D convolution, optionally grouped or dilated, followed by bias, batch norm and an activation:
///
///     z[o,y,x] = sum_{i<I/g, ky, kx} W[o, i, ky, kx] * in[(o / (O/g))*(I/g) + i, y*sy - pt + ky*dy, x*sx - pl + kx*dx]
///     out = activation(batchNorm(z + bias))
///
/// Weights are OIHW: [outputChannels][inputChannels/groups][kernelHeight][kernelWidth]; padding is zeros.
/// After `FoldBatchNorm`, `batchNorm` is nil and the weights and bias carry it.
public struct Convolution: Sendable {
    /// C_in, all groups together.
    public var inputChannels: Int
    /// O, all groups together.
    public var outputChannels: Int
    /// kh.
    public var kernelHeight: Int
    /// kw.
    public var kernelWidth: Int
    /// Vertical stride.
    public var strideY: Int
    /// Horizontal stride.
    public var strideX: Int
    /// Vertical dilation (1: none).
    public var dilationY: Int
    /// Horizontal dilation (1: none).
    public var dilationX: Int
    /// Zero padding of each side.
    public var padding: Padding2D
    /// Groups: output channel o reads input channels of group o / (O / groups) only.
    public var groups: Int
    /// OIHW: [O, C_in / groups, kh, kw].
    public var weights: WeightTensor
    /// [O]; nil means 0.
    public var bias: WeightTensor?
    /// The batch norm after the convolution, folded by `FoldBatchNorm`.
    public var batchNorm: BatchNorm?
    /// Applied after bias and batch norm.
    public var activation: Activation

    /// A convolution with the given geometry and parameters.
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
