import FoldKitCore

/// [connected] (alias [conn]), as darknet's `parse_connected` / `load_connected_weights`.
///
/// Options: `output` (1), `activation` (logistic), `batch_normalize` (0). The input is the previous
/// layer's output flattened channel-major (C*H*W values); the output is `output x 1 x 1`.
///
/// Weights file: biases[output], weights[output][inputs], then if batch norm: scales[output],
/// rolling_mean[output], rolling_variance[output] (note: batch norm AFTER the weights, unlike
/// [convolutional]). With batch norm the biases are beta.
enum ConnectedSection {
    static func build(_ context: SectionContext) throws -> BuiltLayer {
        try context.refuse("dontload", because: "the layer's weights would not be in the file")
        try context.refuse("dontloadscales", because: "the layer's batch-norm statistics would not be in the file")
        let inputs = context.inputShape.count
        let outputs = try context.int("output", default: 1)
        guard outputs >= 1 else {
            throw context.error(.badInput, "output must be at least 1", found: "\(outputs)")
        }
        let activation = try DarknetActivation.read(context, default: "logistic")
        let batchNormalize = try context.int("batch_normalize", default: 0) != 0
        let biases = try context.take(.bias, shape: [outputs])
        let weights = try context.take(.weights, shape: [outputs, inputs], fanIn: inputs)
        let batchNorm = batchNormalize ? try context.takeBatchNorm(channels: outputs, beta: biases) : nil
        let layer = FullyConnected(
            inputCount: inputs, outputCount: outputs, weights: weights,
            bias: batchNorm == nil ? biases : nil, batchNorm: batchNorm, activation: activation)
        return BuiltLayer(kind: .fullyConnected(layer), inputs: [context.previous])
    }
}
