/// The parameter structs of FoldKit's layer kinds. Every op reads and writes channel-major
/// (C x H x W) activations; see `LayerKind` for the list and `ShapeInference` for output shapes.

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

/// Max or average pooling over a kernel window. Output size per axis: (in + padBefore + padAfter - kernel) / stride + 1.
/// The window for output (y, x) starts at (y*strideY - padding.top, x*strideX - padding.left).
/// Max pooling treats padding as -infinity. Average pooling divides by the window area when
/// `countIncludesPadding`, else by the number of in-bounds elements (Keras 'same').
public struct Pooling: Sendable, Hashable {
    public enum Kind: String, Sendable { case max, average }
    public var kind: Kind
    public var kernelHeight: Int
    public var kernelWidth: Int
    public var strideY: Int
    public var strideX: Int
    public var padding: Padding2D
    public var countIncludesPadding: Bool

    public init(kind: Kind, kernelHeight: Int, kernelWidth: Int, strideY: Int, strideX: Int, padding: Padding2D = .zero, countIncludesPadding: Bool = false) {
        self.kind = kind
        self.kernelHeight = kernelHeight
        self.kernelWidth = kernelWidth
        self.strideY = strideY
        self.strideX = strideX
        self.padding = padding
        self.countIncludesPadding = countIncludesPadding
    }
}

/// Softmax. `.perPixelChannels`: over channels at each (y, x) (Keras axis=-1).
/// `.flattened(groups:)`: over each of `groups` contiguous runs of the channel-major tensor (Darknet [softmax]).
public enum SoftmaxAxis: Sendable, Hashable {
    case perPixelChannels
    case flattened(groups: Int)
}

/// Channel concatenation of all inputs in order (Darknet [route], Keras Concatenate on the channel axis).
/// With `groups > 1`, each input contributes only its channels [groupID*C/groups, (groupID+1)*C/groups).
public struct Concatenation: Sendable, Hashable {
    public var groups: Int
    public var groupID: Int
    public init(groups: Int = 1, groupID: Int = 0) {
        self.groups = groups
        self.groupID = groupID
    }
}

/// Element-wise sum of the inputs, then an activation (Darknet [shortcut], Keras Add).
/// The output has the first input's shape. Darknet semantics when shapes differ: each further input
/// is added over the common channels min(C0, Ci); when spatial sizes differ, input i is sampled with
/// stride (Hi/H0) or the output is strided (H0/Hi), as darknet's `shortcut_cpu`.
public struct ElementwiseSum: Sendable, Hashable {
    public var activation: Activation
    public init(activation: Activation = .linear) { self.activation = activation }
}

/// Nearest-neighbour upsampling: out[c, y, x] = scale * in[c, y / strideY, x / strideX]
/// (Darknet [upsample] with `scale`, Keras UpSampling2D 'nearest').
public struct Upsample: Sendable, Hashable {
    public var strideY: Int
    public var strideX: Int
    public var scale: Float
    public init(strideY: Int, strideX: Int, scale: Float = 1) {
        self.strideY = strideY
        self.strideX = strideX
        self.scale = scale
    }
}

/// Space-to-depth rearrangements. `darknetReorg`: Darknet's [reorg] (its own element order, see
/// darknet's `reorg_cpu` with forward=0); `darknetReorg3d`: [reorg3d]; `spaceToDepth`: tf.space_to_depth
/// (the YAD2K `space_to_depth_x2` Lambda) for channels-last models.
public struct Reorg: Sendable, Hashable {
    public enum Flavor: String, Sendable { case darknetReorg, darknetReorg3d, spaceToDepth }
    public var stride: Int
    public var flavor: Flavor
    public init(stride: Int, flavor: Flavor) {
        self.stride = stride
        self.flavor = flavor
    }
}

/// Reinterprets the input's elements with a new shape: the input is flattened in `order`, and the
/// output is filled in `order` (Keras Flatten/Reshape use `.channelsLast`, Darknet `.channelsFirst`).
public struct Reshape: Sendable, Hashable {
    public var target: ActivationShape
    public var order: ElementOrder
    public init(target: ActivationShape, order: ElementOrder) {
        self.target = target
        self.order = order
    }
}

/// YOLO detection head parameters ([region] of YOLOv2, [yolo] of YOLOv3+). The executor passes the
/// raw tensor through unchanged; decoding happens in the verifier.
public struct DetectionHead: Sendable, Hashable {
    public enum Kind: String, Sendable { case region, yolo }
    public var kind: Kind
    public var classes: Int
    /// Anchor (w, h) pairs, all of them ([yolo] selects with `mask`). Region anchors are in grid cells, yolo's in pixels.
    public var anchors: [Float]
    public var mask: [Int]
    public var coords: Int
    public var softmax: Bool
    public var scaleXY: Float
    public var newCoords: Bool

    public init(kind: Kind, classes: Int, anchors: [Float], mask: [Int], coords: Int = 4, softmax: Bool = true, scaleXY: Float = 1, newCoords: Bool = false) {
        self.kind = kind
        self.classes = classes
        self.anchors = anchors
        self.mask = mask
        self.coords = coords
        self.softmax = softmax
        self.scaleXY = scaleXY
        self.newCoords = newCoords
    }

    /// Number of boxes predicted per grid cell.
    public var boxesPerCell: Int { mask.count }
}

/// A per-channel affine map y[c] = scale[c] * x[c] + shift[c]: an unfoldable batch norm after folding.
public struct ChannelAffine: Sendable {
    public var scale: WeightTensor
    public var shift: WeightTensor
    public init(scale: WeightTensor, shift: WeightTensor) {
        self.scale = scale
        self.shift = shift
    }
}
