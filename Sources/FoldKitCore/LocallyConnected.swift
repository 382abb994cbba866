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
public struct LocallyConnected: Sendable {
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
