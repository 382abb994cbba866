/// Every operation a FoldKit network can hold. Readers map their formats onto these; the fold pass,
/// blob writer, executor and verifier only ever see these cases.
public enum LayerKind: Sendable {
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

    /// Short type name for tables and reports.
    public var typeName: String {
        switch self {
        case .convolution(let c): return c.groups > 1 ? (c.groups == c.inputChannels ? "conv(depthwise)" : "conv(groups=\(c.groups))") : "conv"
        case .transposedConvolution: return "deconv"
        case .fullyConnected: return "connected"
        case .locallyConnected: return "local"
        case .pooling(let p): return p.kind == .max ? "maxpool" : "avgpool"
        case .globalAveragePool: return "global_avgpool"
        case .globalMaxPool: return "global_maxpool"
        case .activation(let a): return a.name
        case .prelu: return "prelu"
        case .softmax: return "softmax"
        case .batchNorm: return "batchnorm"
        case .channelAffine: return "channel_affine"
        case .layerNormalization: return "layernorm"
        case .concatenation: return "route"
        case .sum: return "shortcut"
        case .product: return "multiply"
        case .merge(let m): return m.operation.rawValue
        case .upsample(let u):
            switch u.interpolation {
            case .nearest: return "upsample"
            case .bilinear: return "upsample(bilinear)"
            }
        case .reorg(let r): return r.flavor.rawValue
        case .reshape: return "reshape"
        case .zeroPad: return "zeropad"
        case .crop: return "crop"
        case .channelRange: return "channel_range"
        case .identity(let reason): return reason
        case .detection(let d): return d.kind.rawValue
        }
    }

    /// The type name of a layer of this kind reading `inputShapes`: `typeName`, except that a channel window
    /// is told apart by its input's channel count C_in: "channel_pad" when it only adds zero channels
    /// (offset <= 0 and offset + channels >= C_in), "channel_slice" when it only takes a sub-range
    /// (offset >= 0 and offset + channels <= C_in), "channel_range" otherwise.
    public func typeName(inputShapes: [ActivationShape]) -> String {
        switch self {
        case .channelRange(let r):
            guard let inputChannels = inputShapes.first?.channels else { return typeName }
            if r.offset <= 0 && r.offset + r.channels >= inputChannels { return "channel_pad" }
            if r.offset >= 0 && r.offset + r.channels <= inputChannels { return "channel_slice" }
            return "channel_range"
        default:
            return typeName
        }
    }

    /// All parameter tensors of the layer with their roles, in a fixed order.
    public var parameters: [(role: TensorRole, tensor: WeightTensor)] {
        switch self {
        case .convolution(let c):
            return [(.weights, c.weights)] + (c.bias.map { [(.bias, $0)] } ?? []) + (c.batchNorm?.parameters ?? [])
        case .transposedConvolution(let t):
            return [(.weights, t.weights)] + (t.bias.map { [(.bias, $0)] } ?? [])
        case .fullyConnected(let f):
            return [(.weights, f.weights)] + (f.bias.map { [(.bias, $0)] } ?? []) + (f.batchNorm?.parameters ?? [])
        case .locallyConnected(let l): return [(.weights, l.weights), (.bias, l.bias)]
        case .batchNorm(let bn): return bn.parameters
        case .channelAffine(let a): return [(.scale, a.scale), (.shift, a.shift)]
        case .prelu(let alpha): return [(.alpha, alpha)]
        case .layerNormalization(let n): return (n.gamma.map { [(.gamma, $0)] } ?? []) + (n.beta.map { [(.beta, $0)] } ?? [])
        default: return []
        }
    }
}

extension BatchNorm {
    /// gamma, beta, mean, variance as (role, tensor) pairs, leaving out absent ones.
    public var parameters: [(role: TensorRole, tensor: WeightTensor)] {
        var list: [(TensorRole, WeightTensor)] = []
        if let gamma { list.append((.gamma, gamma)) }
        if let beta { list.append((.beta, beta)) }
        list.append((.mean, mean))
        list.append((.variance, variance))
        return list
    }
}
