import FoldKitCore

/// [batchnorm]: a stand-alone batch norm over the previous layer's channels (AlexeyAB's
/// `load_batchnorm_weights`): biases (beta)[c], scales (gamma)[c], rolling_mean[c], rolling_variance[c].
enum BatchNormSection {
    static func build(_ context: SectionContext) throws -> BuiltLayer {
        let channels = context.inputShape.channels
        let beta = try context.take(.bias, shape: [channels])
        let batchNorm = try context.takeBatchNorm(channels: channels, beta: beta)
        return BuiltLayer(kind: .batchNorm(batchNorm), inputs: [context.previous])
    }
}
