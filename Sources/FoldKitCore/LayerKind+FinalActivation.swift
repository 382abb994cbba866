extension LayerKind {
    /// The same layer with its final activation (`LayerOperation.finalActivation`) replaced by
    /// `activation`: a convolution's, transposed convolution's, connected layer's, locally connected
    /// layer's or shortcut's fused activation, or an activation layer's own function. nil for a layer
    /// that has no final activation.
    ///
    /// With `.linear`, the layer outputs what its activation would have been given: the verdict's
    /// conditioning check reads a logistic's input this way where the output itself is saturated
    /// (Docs/Verify.md, "Ill-conditioned elements").
    public func replacingFinalActivation(with activation: Activation) -> LayerKind? {
        switch self {
        case .convolution(var convolution):
            convolution.activation = activation
            return .convolution(convolution)
        case .transposedConvolution(var transposed):
            transposed.activation = activation
            return .transposedConvolution(transposed)
        case .fullyConnected(var connected):
            connected.activation = activation
            return .fullyConnected(connected)
        case .locallyConnected(var local):
            local.activation = activation
            return .locallyConnected(local)
        case .sum(var sum):
            sum.activation = activation
            return .sum(sum)
        case .activation:
            return .activation(activation)
        case .pooling, .globalAveragePool, .globalMaxPool, .prelu, .softmax, .batchNorm, .channelAffine, .layerNormalization,
            .groupNormalization, .concatenation, .product, .merge, .upsample, .reorg, .reshape, .zeroPad, .crop, .channelRange,
            .identity, .detection:
            return nil
        }
    }
}
