import FoldKitCore

/// The one place the ONNX writer looks at a layer's kind: each operation goes to its lowering
/// (`ONNXGraphBuilder+<Family>.swift`). No `default:` arm: a new operation does not compile until it is
/// lowered here or refused by name.
extension ONNXGraphBuilder {
    /// Appends the nodes computing `layer` from `inputs` (tensor names, shapes `shapes`) and returns the
    /// name of its `[1, C, H, W]` output.
    mutating func lower(_ layer: Layer, inputs: [String], shapes: [ActivationShape]) throws -> String {
        let x = inputs.first ?? ""
        let shape = shapes.first ?? layer.outputShape
        switch layer.kind {
        case .convolution(let c): return try convolution(c, input: x)
        case .transposedConvolution(let t): return try transposedConvolution(t, input: x, inputShape: shape)
        case .fullyConnected(let f): return try fullyConnected(f, input: x)
        case .locallyConnected(let l): return try locallyConnected(l, input: x)
        case .pooling(let p): return try pooling(p, input: x)
        case .globalAveragePool: return globalPool(max: false, input: x)
        case .globalMaxPool: return globalPool(max: true, input: x)
        case .activation(let a): return a == .linear ? node("Identity", [x]) : activate(x, a)
        case .prelu(let alpha): return try prelu(alpha: alpha, input: x, shape: shape)
        case .softmax(let axis): return try softmax(axis, input: x, shape: shape)
        case .batchNorm(let bn): return try batchNorm(bn, input: x)
        case .channelAffine(let a): return try channelAffine(a, input: x, channels: shape.channels)
        case .layerNormalization(let n): return try layerNormalization(n, input: x, channels: shape.channels)
        case .groupNormalization(let n): return try groupNormalization(n, input: x, shape: shape)
        case .concatenation(let r): return concatenation(r, inputs: inputs, shapes: shapes)
        case .sum(let s): return shortcut(s, inputs: inputs, shapes: shapes)
        case .product: return product(inputs: inputs)
        case .merge(let m): return merge(m, inputs: inputs)
        case .upsample(let u): return upsample(u, input: x)
        case .reorg(let r): return try reorg(r, input: x, inputShape: shape, outputShape: layer.outputShape)
        case .reshape(let r): return reshapeLayer(r, input: x)
        case .zeroPad(let p): return zeroPad(p, input: x)
        case .crop(let p, let scale, let shift): return crop(p, scale: scale, shift: shift, input: x, inputShape: shape)
        case .channelRange(let r): return channelRange(r, input: x, inputShape: shape)
        // A detection head passes its input through: the graph outputs the raw head, decoded by the app
        // with the parameters in the model's metadata (as the blob manifest describes them).
        case .identity, .detection: return node("Identity", [x])
        }
    }
}
