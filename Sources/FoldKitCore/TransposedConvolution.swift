/// 2-D transposed convolution ("deconvolution": Keras Conv2DTranspose), then bias and an activation.
/// Every input element scatters its kernel into the output:
///
///     z[o, y, x] = sum over i, iy, ix, ky, kx with iy*strideY + ky - offsetY == y and ix*strideX + kx - offsetX == x
///                  of in[i, iy, ix] * W[o, i, ky, kx]
///     out[o, y, x] = activation(z[o, y, x] + bias[o])          for y < outputHeight, x < outputWidth
///
/// The full output of an H x W input is ((H - 1)*strideY + kernelHeight) x ((W - 1)*strideX + kernelWidth);
/// the layer keeps rows offsetY ..< offsetY + outputHeight and columns offsetX ..< offsetX + outputWidth of
/// it, and positions no input reaches (past the full output) hold the bias alone. So one description covers
/// Keras' paddings: 'valid' is offset 0 and the full size; 'same' (output H*stride) is offset
/// pad_total / 2 with pad_total = max(kernel - stride, 0); `output_padding` enlarges the output.
///
/// Weights are OIHW, [outputChannels][inputChannels][kernelHeight][kernelWidth], the layout of
/// `Convolution`'s weights. No groups, dilation or batch norm: a batch norm that follows stays a layer of
/// its own.
public struct TransposedConvolution: Sendable, Codable {
    /// OIHW: [outputChannels, inputChannels, kernelHeight, kernelWidth].
    public var weights: WeightTensor
    /// [outputChannels]; nil means 0.
    public var bias: WeightTensor?
    /// O.
    public var outputChannels: Int
    /// C_in.
    public var inputChannels: Int
    /// kh.
    public var kernelHeight: Int
    /// kw.
    public var kernelWidth: Int
    /// Vertical stride: input row iy scatters to full-output rows iy*strideY ..< iy*strideY + kh.
    public var strideY: Int
    /// Horizontal stride.
    public var strideX: Int
    /// Rows cut from the start of the full output.
    public var offsetY: Int
    /// Columns cut from the start of the full output.
    public var offsetX: Int
    /// Output rows kept (may reach past the full output: those rows hold the bias).
    public var outputHeight: Int
    /// Output columns kept (likewise).
    public var outputWidth: Int
    /// Applied after the bias.
    public var activation: Activation

    /// A transposed convolution with the given parameters and geometry.
    public init(
        weights: WeightTensor, bias: WeightTensor?, outputChannels: Int, inputChannels: Int, kernelHeight: Int, kernelWidth: Int,
        strideY: Int, strideX: Int, offsetY: Int, offsetX: Int, outputHeight: Int, outputWidth: Int, activation: Activation
    ) {
        self.weights = weights
        self.bias = bias
        self.outputChannels = outputChannels
        self.inputChannels = inputChannels
        self.kernelHeight = kernelHeight
        self.kernelWidth = kernelWidth
        self.strideY = strideY
        self.strideX = strideX
        self.offsetY = offsetY
        self.offsetX = offsetX
        self.outputHeight = outputHeight
        self.outputWidth = outputWidth
        self.activation = activation
    }
}

extension TransposedConvolution: LayerOperation {
    public var layerKind: LayerKind { .transposedConvolution(self) }

    public func typeName(inputShapes: [ActivationShape]) -> String { "deconv" }

    /// `outputChannels` x `outputHeight` x `outputWidth`; the input must have `inputChannels`, kernel and
    /// stride at least 1, offsets at least 0, and weights O x C x kh x kw.
    public func outputShape(for inputs: [ActivationShape]) throws -> ActivationShape {
        let first = inputs[0]
        try require(
            first.channels == inputChannels, "transposed convolution input channels", expected: "\(inputChannels)", found: "\(first.channels)")
        try require(
            kernelHeight >= 1 && kernelWidth >= 1 && strideY >= 1 && strideX >= 1, "kernel size and stride must be at least 1",
            found: "kernel \(kernelHeight)x\(kernelWidth), stride \(strideY)x\(strideX)")
        try require(offsetY >= 0 && offsetX >= 0, "transposed convolution offsets must be at least 0", found: "\(offsetY), \(offsetX)")
        try require(
            outputHeight >= 1 && outputWidth >= 1, "transposed convolution output size must be at least 1x1", found: "\(outputHeight)x\(outputWidth)")
        let expected = SizeLimits.elementCount([outputChannels, inputChannels, kernelHeight, kernelWidth])
        try require(
            expected == weights.count, "transposed convolution weight count", expected: expected.map(String.init) ?? "more than Int holds",
            found: "\(weights.count)")
        if let bias {
            try require(bias.count == outputChannels, "transposed convolution bias count", expected: "\(outputChannels)", found: "\(bias.count)")
        }
        return ActivationShape(channels: outputChannels, height: outputHeight, width: outputWidth)
    }

    public var parameters: [(role: TensorRole, tensor: WeightTensor)] { [(.weights, weights)] + (bias.map { [(.bias, $0)] } ?? []) }

    public func mappingParameters(_ transform: (TensorRole, WeightTensor) throws -> WeightTensor) rethrows -> LayerKind {
        var copy = self
        copy.weights = try transform(.weights, weights)
        copy.bias = try bias.map { try transform(.bias, $0) }
        return .transposedConvolution(copy)
    }

    public func parameterName(_ role: TensorRole) -> String { role == .weights ? "transposed convolution weights" : role.readableName }

    /// `W`: OIHW [O, C, kh, kw]; `b`: [O], zeros without a bias.
    public func blobs(inputShapes: [ActivationShape], outputShape: ActivationShape) -> [BlobTensorPlan] {
        [
            BlobTensorPlan(
                role: .weights, suffix: "W", tensor: weights,
                form: .weights(oihw: [outputChannels, inputChannels, kernelHeight, kernelWidth], depthwise: false)),
            BlobTensorPlan(role: .bias, suffix: "b", tensor: bias, form: .vector(shape: [outputChannels])),
        ]
    }

    public var blobPrefix: String { "deconv" }

    public func readingBlobs(_ values: (TensorRole) throws -> [Float]) throws -> LayerKind {
        var copy = self
        copy.weights = WeightTensor(shape: weights.shape, values: try values(.weights))
        copy.bias = WeightTensor(shape: [outputChannels], values: try values(.bias))
        return .transposedConvolution(copy)
    }

    public func describe(into description: inout LayerDescription) {
        description.kernel = [kernelHeight, kernelWidth]
        description.stride = [strideY, strideX]
        description.outputOffset = [offsetY, offsetX]
        description.activation = activation.name
        description.foldedBatchNorm = false
    }

    public var finalActivation: Activation? { activation }

    /// An output position meets at most ceil(kh / sy) kernel rows and ceil(kw / sx) kernel columns of each
    /// input channel.
    public func accumulationLength(inputShapes: [ActivationShape], outputShape: ActivationShape) -> Int {
        let rows = (kernelHeight + strideY - 1) / max(strideY, 1), columns = (kernelWidth + strideX - 1) / max(strideX, 1)
        return inputChannels * rows * columns
    }

    public var channelTensors: ChannelTensors? { ChannelTensors(weights: weights, bias: bias, rows: outputChannels) }
}

extension TransposedConvolution {
    /// How the kept output relates to the full output along one axis: the full output of an input of n
    /// rows is (n - 1) * stride + k rows; `begin` rows are cut before the kept ones, `end` after them, and
    /// `extra` rows past the full output are kept (they hold the bias alone).
    public struct Edges: Sendable, Equatable {
        /// Rows cut before the kept rows (the offset).
        public var begin: Int
        /// Rows of the full output cut after the kept rows (0 when the kept rows reach past it).
        public var end: Int
        /// Kept rows past the full output.
        public var extra: Int
    }

    /// The edges of the rows (`rows`) and columns (`columns`) for an input of shape `input`.
    public func edges(input: ActivationShape) -> (rows: Edges, columns: Edges) {
        func edges(extent: Int, stride: Int, kernel: Int, offset: Int, kept: Int) -> Edges {
            let full = (extent - 1) * stride + kernel
            let end = full - offset - kept
            return end >= 0 ? Edges(begin: offset, end: end, extra: 0) : Edges(begin: offset, end: 0, extra: -end)
        }
        return (
            edges(extent: input.height, stride: strideY, kernel: kernelHeight, offset: offsetY, kept: outputHeight),
            edges(extent: input.width, stride: strideX, kernel: kernelWidth, offset: offsetX, kept: outputWidth)
        )
    }
}
