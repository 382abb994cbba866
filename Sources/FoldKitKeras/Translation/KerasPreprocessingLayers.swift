import FoldKitCore

/// Keras preprocessing layers that are arithmetic, each read as one per-channel affine y = scale * x + shift
/// (`.channelAffine`). It stays its own layer: an offset cannot move into a following convolution that pads
/// with zeros (the padded border would no longer be zero), so nothing folds it into a neighbour.
enum KerasPreprocessingLayers {
    /// Rescaling (keras/src/layers/preprocessing/rescaling.py): y = x * scale + offset, `scale` and `offset`
    /// a number or one value per channel.
    static func rescaling(_ layer: KerasLayerDescription, input: Int, _ context: inout KerasTranslationContext) throws {
        let channels = context.shape(of: input).channels
        let scale = try perChannel(layer, "scale", default: 1, channels: channels, context)
        let offset = try perChannel(layer, "offset", default: 0, channels: channels, context)
        try context.emitAffine(layer, scale: scale, shift: offset, input: input)
    }

    /// Normalization (keras/src/layers/preprocessing/normalization.py) at inference:
    /// y = (x - mean) / max(sqrt(variance), 1e-7), or with `invert` y = mean + x * sqrt(variance); as an
    /// affine scale = 1 / max(sqrt(variance), 1e-7), shift = -mean * scale (inverted: scale = sqrt(variance),
    /// shift = mean), computed in float64 and rounded once. `mean` and `variance` come from the config when it
    /// gives them, else from the stored weights (mean, variance, count). The axis must be the channel axis.
    static func normalization(_ layer: KerasLayerDescription, input: Int, _ context: inout KerasTranslationContext) throws {
        let shape = context.shape(of: input)
        let channels = shape.channels
        let probe = context.isVector(shape) ? ActivationShape.vector(channels) : ActivationShape(channels: channels, height: 2, width: 2)
        try context.checkChannelAxis(layer, axisValue: layer.config["axis"], default: -1, shape: probe, what: "normalization axis")
        let mean: [Double], variance: [Double]
        if let given = layer.config["mean"], !given.isNull {
            mean = try perChannel(layer, "mean", default: 0, channels: channels, context)
            variance = try perChannel(layer, "variance", default: 1, channels: channels, context)
        } else {
            let arrays = try context.weightArrays(layer, expected: 3, roles: "mean, variance, count", integers: [2])
            mean = try context.vector(layer, arrays[0], channels).floats().map(Double.init)
            variance = try context.vector(layer, arrays[1], channels).floats().map(Double.init)
        }
        let epsilon = 1e-7  // keras.backend.epsilon(), the floor of the denominator
        let invert = layer.config["invert"]?.bool ?? false
        let scale = variance.map { invert ? $0.squareRoot() : 1 / max($0.squareRoot(), epsilon) }
        let shift = invert ? mean : zip(mean, scale).map { -$0 * $1 }
        try context.emitAffine(layer, scale: scale, shift: shift, input: input)
    }

    /// `key` of the layer's config as one value per channel: a number (for every channel) or a list of 1 or
    /// `channels` numbers; `fallback` when absent or null.
    private static func perChannel(
        _ layer: KerasLayerDescription, _ key: String, default fallback: Double, channels: Int, _ context: KerasTranslationContext
    ) throws -> [Double] {
        guard let value = layer.config[key], !value.isNull else { return [Double](repeating: fallback, count: channels) }
        return try context.perChannel(value, channels: channels, layer, what: "'\(key)'")
    }
}
