/// Locally connected convolution (Darknet [local], AlexeyAB darknet src/local_layer.c): a convolution
/// whose every output location has its own filters and every output element its own bias.
///
/// With C input channels, O outputs, a k x k kernel, stride s, `padding` p and L = outputHeight *
/// outputWidth locations, location l = y * outputWidth + x computes
///
///     out[o, y, x] = activation(bias[o, y, x]
///                    + sum over i, ky, kx of weights[l, o, i, ky, kx] * in[i, y*s + ky - p, x*s + kx - p])
///
/// with input cells outside the input reading zero (darknet's im2col). The output is O x outputHeight x
/// outputWidth with outputHeight = (H + 2p - k) / s + 1 (integer division truncating toward zero, as C's),
/// likewise the width.
///
/// Layouts (darknet's own, as `load_weights` reads them for LOCAL): `weights` is
/// [L][O][C][k][k] - for each location an O x (C*k*k) row-major matrix, the im2col row order
/// (i, ky, kx) - and `bias` is [O][outputHeight][outputWidth], one value per output element,
/// channel-major. There is no batch norm; nothing folds into this layer.
public struct LocallyConnected: Sendable, Codable {
    /// Input channels C.
    public var inputChannels: Int
    /// Output channels O (darknet's `filters`).
    public var outputChannels: Int
    /// The kernel's height and width k.
    public var kernelSize: Int
    /// The stride s along both axes.
    public var stride: Int
    /// Zero cells p before the first row and column (darknet passes its `pad` value to im2col as is).
    public var padding: Int
    /// Output rows.
    public var outputHeight: Int
    /// Output columns.
    public var outputWidth: Int
    /// [L, O, C, k, k] with L = outputHeight * outputWidth.
    public var weights: WeightTensor
    /// [O, outputHeight, outputWidth].
    public var bias: WeightTensor
    /// Applied after the bias.
    public var activation: Activation

    /// A locally connected layer of the given geometry and parameters.
    public init(
        inputChannels: Int, outputChannels: Int, kernelSize: Int, stride: Int, padding: Int, outputHeight: Int, outputWidth: Int,
        weights: WeightTensor, bias: WeightTensor, activation: Activation
    ) {
        self.inputChannels = inputChannels
        self.outputChannels = outputChannels
        self.kernelSize = kernelSize
        self.stride = stride
        self.padding = padding
        self.outputHeight = outputHeight
        self.outputWidth = outputWidth
        self.weights = weights
        self.bias = bias
        self.activation = activation
    }

    /// Output locations L = outputHeight * outputWidth.
    public var locations: Int { outputHeight * outputWidth }

    /// The length of each output's sum: C * k * k.
    public var accumulationLength: Int { inputChannels * kernelSize * kernelSize }

    /// The output size along an axis of `extent` input cells: (extent + 2p - k) / s + 1, truncating as C does.
    public func outputExtent(input extent: Int) -> Int { (extent + 2 * padding - kernelSize) / max(stride, 1) + 1 }
}

extension LocallyConnected: LayerOperation {
    public var layerKind: LayerKind { .locallyConnected(self) }

    public func typeName(inputShapes: [ActivationShape]) -> String { "local" }

    /// `outputChannels` x `outputHeight` x `outputWidth`, which must be (in + 2 * padding - k) / stride + 1;
    /// weights L x O x C x k x k and one bias per output element.
    public func outputShape(for inputs: [ActivationShape]) throws -> ActivationShape {
        let first = inputs[0]
        try require(first.channels == inputChannels, "locally connected input channels", expected: "\(inputChannels)", found: "\(first.channels)")
        try require(
            kernelSize >= 1 && stride >= 1 && padding >= 0 && outputChannels >= 1, "kernel size, stride and filters must be at least 1",
            found: "size=\(kernelSize) stride=\(stride) pad=\(padding) filters=\(outputChannels)")
        try require(
            outputExtent(input: first.height) == outputHeight && outputExtent(input: first.width) == outputWidth && outputHeight >= 1
                && outputWidth >= 1,
            "locally connected output size does not follow from the input",
            expected: "\(outputExtent(input: first.height))x\(outputExtent(input: first.width)), at least 1x1",
            found: "\(outputHeight)x\(outputWidth)")
        let expectedWeights = SizeLimits.elementCount([locations, outputChannels, inputChannels, kernelSize, kernelSize])
        try require(
            expectedWeights == weights.count, "locally connected weight count", expected: expectedWeights.map(String.init) ?? "more than Int holds",
            found: "\(weights.count)")
        let biases = outputChannels * locations
        try require(biases == bias.count, "locally connected bias count (one per output element)", expected: "\(biases)", found: "\(bias.count)")
        return ActivationShape(channels: outputChannels, height: outputHeight, width: outputWidth)
    }

    public var parameters: [(role: TensorRole, tensor: WeightTensor)] { [(.weights, weights), (.bias, bias)] }

    public func mappingParameters(_ transform: (TensorRole, WeightTensor) throws -> WeightTensor) rethrows -> LayerKind {
        var copy = self
        copy.weights = try transform(.weights, weights)
        copy.bias = try transform(.bias, bias)
        return .locallyConnected(copy)
    }

    public func parameterName(_ role: TensorRole) -> String {
        switch role {
        case .weights: return "locally connected weights"
        case .bias: return "locally connected biases"
        default: return role.readableName
        }
    }

    /// `W`: [L*O, C, k, k], each location's O filters as outputs of their own, row l*O + o
    /// (Docs/BlobFormat.md, "Locally connected layers"); `b`: one value per output element, [O, H, W].
    public func blobs(inputShapes: [ActivationShape], outputShape: ActivationShape) -> [BlobTensorPlan] {
        [
            BlobTensorPlan(
                role: .weights, suffix: "W", tensor: weights,
                form: .weights(oihw: [locations * outputChannels, inputChannels, kernelSize, kernelSize], depthwise: false)),
            BlobTensorPlan(role: .bias, suffix: "b", tensor: bias, form: .planes(shape: [outputChannels, outputHeight, outputWidth])),
        ]
    }

    public var blobPrefix: String { "local" }

    public func readingBlobs(_ values: (TensorRole) throws -> [Float]) throws -> LayerKind {
        var copy = self
        copy.weights = WeightTensor(shape: weights.shape, values: try values(.weights))
        copy.bias = WeightTensor(shape: bias.shape, values: try values(.bias))
        return .locallyConnected(copy)
    }

    public func describe(into description: inout LayerDescription) {
        description.kernel = [kernelSize, kernelSize]
        description.stride = [stride, stride]
        // Zero cells before the first row and column; reads past the last ones are zero too.
        description.padding = [padding, padding, padding, padding]
        description.activation = activation.name
        description.foldedBatchNorm = false
    }

    public var finalActivation: Activation? { activation }

    public func accumulationLength(inputShapes: [ActivationShape], outputShape: ActivationShape) -> Int { accumulationLength }

    /// Rows [L, O, ...] (a row per location and filter), biases [O, L].
    public var channelTensors: ChannelTensors? {
        ChannelTensors(
            weights: weights, bias: bias, rows: locations * outputChannels, rowChannel: .modulo(outputChannels), biasChannel: .dividedBy(locations))
    }
}
