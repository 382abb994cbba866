import FoldKitCore

/// The one place the LiteRT writer looks at a layer's kind: each operation goes to its lowering
/// (`TFLiteGraphBuilder+<Family>.swift`). No `default:` arm: a new operation does not compile until it is
/// lowered here or refused by name.
extension TFLiteGraphBuilder {
    /// Appends the operators computing `layer` from `inputs` (tensor indices, NHWC, FoldKit shapes `shapes`)
    /// and returns its NHWC output tensor (an input's own tensor when the layer passes it through).
    mutating func lower(_ layer: Layer, inputs: [Int], shapes: [ActivationShape]) throws -> Int {
        let x = inputs.first ?? -1
        let shape = shapes.first ?? layer.outputShape
        switch layer.kind {
        case .convolution(let c): return try convolution(c, input: x, inputShape: shape, outputShape: layer.outputShape)
        case .transposedConvolution(let t): return try transposedConvolution(t, input: x, inputShape: shape)
        case .fullyConnected(let f): return try fullyConnected(f, input: x, inputShape: shape)
        case .locallyConnected(let l): return try locallyConnected(l, input: x, inputShape: shape)
        case .pooling(let p): return try pooling(p, input: x, inputShape: shape, outputShape: layer.outputShape)
        case .globalAveragePool: return op(.mean, [x, integers([1, 2])], shape: nhwc(layer.outputShape), options: .reducer(keepDims: true))
        case .globalMaxPool: return op(.reduceMax, [x, integers([1, 2])], shape: nhwc(layer.outputShape), options: .reducer(keepDims: true))
        case .activation(let a): return try activate(x, a)
        case .prelu(let alpha): return try prelu(alpha: alpha, input: x, shape: shape)
        case .softmax(let axis): return try softmax(axis, input: x, shape: shape)
        case .batchNorm(let bn): return try batchNorm(bn, input: x)
        case .channelAffine(let a): return try channelAffine(a, input: x, channels: shape.channels)
        case .layerNormalization(let n): return try layerNormalization(n, input: x, shape: shape)
        case .groupNormalization(let n): return try groupNormalization(n, input: x, shape: shape)
        case .concatenation(let r): return concatenation(r, inputs: inputs, shapes: shapes, outputShape: layer.outputShape)
        case .sum(let s): return try shortcut(s, inputs: inputs, shapes: shapes)
        case .product: return binary(.mul, x, inputs[1])
        case .merge(let m): return merge(m, inputs: inputs)
        case .upsample(let u): return try upsample(u, input: x, inputShape: shape)
        case .reorg(let r): return try reorg(r, input: x, inputShape: shape, outputShape: layer.outputShape)
        case .reshape(let r): return reshapeLayer(r, input: x, inputShape: shape)
        case .zeroPad(let p): return pad(x, [0, p.top, p.left, 0], [0, p.bottom, p.right, 0])
        case .crop(let p, let scale, let shift): return crop(p, scale: scale, shift: shift, input: x, inputShape: shape)
        case .channelRange(let r): return channelRange(r, input: x, inputShape: shape)
        // A detection head passes its input through: the model outputs the raw head, decoded by the app
        // with the parameters in the model's metadata.
        case .identity, .detection: return x
        }
    }
}
