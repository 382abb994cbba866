/// 2-D convolution, optionally grouped or dilated, followed by bias, batch norm and an activation:
///
///     z[o,y,x] = sum_{i<I/g, ky, kx} W[o, i, ky, kx] * in[(o / (O/g))*(I/g) + i, y*sy - pt + ky*dy, x*sx - pl + kx*dx]
///     out = activation(batchNorm(z + bias))
///
/// Weights are OIHW: [outputChannels][inputChannels/groups][kernelHeight][kernelWidth]; padding is zeros.
/// After `FoldBatchNorm`, `batchNorm` is nil and the weights and bias carry it.
public struct Convolution: Sendable, Codable {
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

extension Convolution: LayerOperation {
    /// The attached batch norm's epsilon convention.
    public var epsilonConvention: EpsilonConvention? { batchNorm?.convention }

    public var layerKind: LayerKind { .convolution(self) }

    public func typeName(inputShapes: [ActivationShape]) -> String {
        groups > 1 ? (groups == inputChannels ? "conv(depthwise)" : "conv(groups=\(groups))") : "conv"
    }

    /// (in + padBefore + padAfter - ((k - 1) * dilation + 1)) / stride + 1 rows and columns of
    /// `outputChannels`; the input must have `inputChannels`, groups divide both channel counts, and the
    /// weights hold O x (C / groups) x kh x kw values.
    public func outputShape(for inputs: [ActivationShape]) throws -> ActivationShape {
        let first = inputs[0]
        try require(first.channels == inputChannels, "convolution input channels", expected: "\(inputChannels)", found: "\(first.channels)")
        try require(
            groups >= 1 && inputChannels % groups == 0 && outputChannels % groups == 0,
            "groups must divide input and output channels", found: "groups=\(groups), in=\(inputChannels), out=\(outputChannels)")
        try require(strideX >= 1 && strideY >= 1 && dilationX >= 1 && dilationY >= 1, "stride and dilation must be at least 1")
        let expected = SizeLimits.elementCount([outputChannels, inputChannels / max(groups, 1), kernelHeight, kernelWidth])
        try require(
            expected == weights.count, "convolution weight count", expected: expected.map(String.init) ?? "more than Int holds",
            found: "\(weights.count)")
        let effectiveHeight = (kernelHeight - 1) * dilationY + 1
        let effectiveWidth = (kernelWidth - 1) * dilationX + 1
        return ActivationShape(
            channels: outputChannels, height: (first.height + padding.top + padding.bottom - effectiveHeight) / strideY + 1,
            width: (first.width + padding.left + padding.right - effectiveWidth) / strideX + 1)
    }

    public var parameters: [(role: TensorRole, tensor: WeightTensor)] {
        [(.weights, weights)] + (bias.map { [(.bias, $0)] } ?? []) + (batchNorm?.parameters ?? [])
    }

    public func mappingParameters(_ transform: (TensorRole, WeightTensor) throws -> WeightTensor) rethrows -> LayerKind {
        var copy = self
        copy.weights = try transform(.weights, weights)
        copy.bias = try bias.map { try transform(.bias, $0) }
        copy.batchNorm = try batchNorm?.mappingBatchNorm(transform)
        return .convolution(copy)
    }

    public func parameterName(_ role: TensorRole) -> String { role == .weights ? "convolution weights" : role.readableName }

    /// `W`: OIHW [O, C / groups, kh, kw] (the depthwise form when groups = O and C / groups = 1); `b`: [O],
    /// zeros without a bias.
    public var isFolded: Bool { batchNorm == nil }

    public func blobs(inputShapes: [ActivationShape], outputShape: ActivationShape) -> [BlobTensorPlan] {
        let dims = [outputChannels, inputChannels / groups, kernelHeight, kernelWidth]
        return [
            BlobTensorPlan(
                role: .weights, suffix: "W", tensor: weights, form: .weights(oihw: dims, depthwise: groups > 1 && dims[1] == 1 && dims[0] == groups)),
            BlobTensorPlan(role: .bias, suffix: "b", tensor: bias, form: .vector(shape: [outputChannels])),
        ]
    }

    public var blobPrefix: String { "conv" }

    public func readingBlobs(_ values: (TensorRole) throws -> [Float]) throws -> LayerKind {
        var copy = self
        copy.weights = WeightTensor(shape: weights.shape, values: try values(.weights))
        copy.bias = WeightTensor(shape: [outputChannels], values: try values(.bias))
        copy.batchNorm = nil  // folded into the blobs
        return .convolution(copy)
    }

    public func describe(into description: inout LayerDescription) {
        description.kernel = [kernelHeight, kernelWidth]
        description.stride = [strideY, strideX]
        description.dilation = [dilationY, dilationX]
        description.padding = [padding.top, padding.left, padding.bottom, padding.right]
        description.groups = groups
        description.activation = activation.name
        description.foldedBatchNorm = batchNorm != nil
    }

    public var finalActivation: Activation? { activation }

    public func accumulationLength(inputShapes: [ActivationShape], outputShape: ActivationShape) -> Int { accumulationLength }

    public var channelTensors: ChannelTensors? { ChannelTensors(weights: weights, bias: bias, rows: outputChannels) }
}
