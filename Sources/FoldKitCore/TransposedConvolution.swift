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
public struct TransposedConvolution: Sendable {
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
