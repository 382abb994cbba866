/// Every operation a FoldKit network can hold. Readers map their formats onto these; the fold pass,
/// blob writer, executor and verifier only ever see these cases.
public enum LayerKind: Sendable, Codable {
    /// Convolution (+ bias, batch norm, activation). Inputs: 1.
    case convolution(Convolution)
    /// Transposed convolution (+ bias, activation; `TransposedConvolution`). Inputs: 1.
    case transposedConvolution(TransposedConvolution)
    /// Fully connected. Inputs: 1 (flattened channel-major).
    case fullyConnected(FullyConnected)
    /// Locally connected convolution: its own filters at every output location, a bias per output
    /// element, then an activation (`LocallyConnected`, Darknet [local]). Inputs: 1.
    case locallyConnected(LocallyConnected)
    /// Max or average pooling. Inputs: 1.
    case pooling(Pooling)
    /// Average over H x W per channel (Darknet [avgpool], Keras GlobalAveragePooling2D). Output C x 1 x 1.
    case globalAveragePool
    /// Max over H x W per channel (Keras GlobalMaxPooling2D). Output C x 1 x 1.
    case globalMaxPool
    /// Element-wise activation. Inputs: 1.
    case activation(Activation)
    /// Parametric ReLU: x >= 0 ? x : alpha * x, alpha per channel ([C]) or per element ([C, H, W]).
    case prelu(alpha: WeightTensor)
    /// Softmax. Inputs: 1.
    case softmax(SoftmaxAxis)
    /// Inference-time batch norm that was not folded into a convolution. Inputs: 1.
    case batchNorm(BatchNorm)
    /// Per-channel scale and shift (what an unfoldable batch norm becomes after folding). Inputs: 1.
    case channelAffine(ChannelAffine)
    /// Normalization over the channels at every position, then gamma and beta per channel
    /// (`LayerNormalization`, Keras LayerNormalization). Inputs: 1.
    case layerNormalization(LayerNormalization)
    /// Normalization over each of `groups` contiguous channel groups of the whole map, then gamma and beta
    /// per channel (`GroupNormalization`, Keras GroupNormalization). Inputs: 1.
    case groupNormalization(GroupNormalization)
    /// Channel concatenation. Inputs: 1 or more.
    case concatenation(Concatenation)
    /// Element-wise sum with Darknet's shortcut rules. Inputs: 2 or more.
    case sum(ElementwiseSum)
    /// Element-wise product; an input of shape C x 1 x 1 is broadcast over H x W
    /// (Darknet [scale_channels], [sam], Keras Multiply). Output has the larger input's shape.
    case product
    /// Element-wise add, subtract, multiply, divide, average, maximum or minimum of 2 or more inputs, left
    /// to right in input order; a C x 1 x 1 or 1 x 1 x 1 input is broadcast (`ElementwiseMerge`).
    /// Output has the full shape.
    case merge(ElementwiseMerge)
    /// Nearest-neighbour or bilinear upsampling by integer factors (`Upsample`). Inputs: 1.
    case upsample(Upsample)
    /// Space-to-depth. Inputs: 1.
    case reorg(Reorg)
    /// Reinterpret / flatten. Inputs: 1.
    case reshape(Reshape)
    /// Zero padding around the feature map (Keras ZeroPadding2D). Inputs: 1.
    case zeroPad(Padding2D)
    /// Remove rows and columns at the edges (Keras Cropping2D), then out = in * scale + shift (Darknet
    /// [crop] at inference: a centred crop, scale 2 and shift -1 unless noadjust=1). Inputs: 1.
    case crop(Padding2D, scale: Float = 1, shift: Float = 0)
    /// A window along the channels: out[c] = in[c + offset], zero outside the input (`ChannelRange`:
    /// channel padding and slicing). Inputs: 1.
    case channelRange(ChannelRange)
    /// Passes the input through unchanged (dropout, Darknet [cost], Keras InputLayer-like no-ops).
    case identity(reason: String)
    /// Detection head: raw pass-through; decoded by the verifier. Inputs: 1.
    case detection(DetectionHead)

    /// The operation's declaration: its shape rule, tensors, blob facts, tolerance and float16 facts
    /// (`LayerOperation`). The one switch over the kinds outside the executor's kernel table and the
    /// writers of other engines' formats.
    public var operation: any LayerOperation {
        switch self {
        case .convolution(let c): return c
        case .transposedConvolution(let t): return t
        case .fullyConnected(let f): return f
        case .locallyConnected(let l): return l
        case .pooling(let p): return p
        case .globalAveragePool: return GlobalPooling(isMaximum: false)
        case .globalMaxPool: return GlobalPooling(isMaximum: true)
        case .activation(let a): return a
        case .prelu(let alpha): return ParametricReLU(alpha: alpha)
        case .softmax(let axis): return axis
        case .batchNorm(let bn): return bn
        case .channelAffine(let a): return a
        case .layerNormalization(let n): return n
        case .groupNormalization(let n): return n
        case .concatenation(let r): return r
        case .sum(let s): return s
        case .product: return ElementwiseProduct()
        case .merge(let m): return m
        case .upsample(let u): return u
        case .reorg(let r): return r
        case .reshape(let r): return r
        case .zeroPad(let p): return ZeroPadding(edges: p)
        case .crop(let p, let scale, let shift): return Crop(edges: p, scale: scale, shift: shift)
        case .channelRange(let r): return r
        case .identity(let reason): return PassThrough(reason: reason)
        case .detection(let head): return head
        }
    }

    /// Short type name for tables and reports (the operation's, for a layer reading no input).
    public var typeName: String { operation.typeName(inputShapes: []) }

    /// The type name of a layer of this kind reading `inputShapes` (`LayerOperation.typeName(inputShapes:)`:
    /// a channel window is told apart by its input's channel count).
    public func typeName(inputShapes: [ActivationShape]) -> String { operation.typeName(inputShapes: inputShapes) }

    /// All parameter tensors of the layer with their roles, in a fixed order.
    public var parameters: [(role: TensorRole, tensor: WeightTensor)] { operation.parameters }
}
