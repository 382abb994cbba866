import FoldKitCore

/// The layers keras.applications defines for its own networks (keras/src/applications/convnext.py,
/// inception_resnet_v2.py; tf.keras the same under tf_keras/src/applications), read only when the file
/// says they are Keras's own: no module (`.h5` files), a `keras.src.applications` / `keras.applications`
/// module, or tf.keras's registered name `Custom>CustomScaleLayer`.
enum KerasApplicationLayers {
    /// Class name -> how it is translated.
    static let classes: Set<String> = ["LayerScale", "StochasticDepth", "CustomScaleLayer", "Custom>CustomScaleLayer"]

    /// Whether `layer` is one of Keras's application layers rather than a user's class of the same name.
    static func isKerasOwn(className: String, module: String?) -> Bool {
        guard classes.contains(className) else { return false }
        guard let module else { return true }
        return module.hasPrefix("keras.src.applications") || module.hasPrefix("keras.applications")
            || module.hasPrefix("tf_keras.src.applications")
    }

    static func translate(_ layer: KerasLayerDescription, inputs: [Int], _ context: inout KerasTranslationContext) throws {
        func single() throws -> Int {
            guard inputs.count == 1 else { throw context.error(.badInput, layer, "layer takes one input", expected: "1", found: "\(inputs.count)") }
            return inputs[0]
        }
        switch layer.className {
        case "LayerScale": try layerScale(layer, input: single(), &context)
        case "StochasticDepth": try stochasticDepth(layer, input: single(), &context)
        default: try customScale(layer, inputs: inputs, &context)
        }
    }

    /// ConvNeXt's LayerScale: y = x * gamma, gamma one value per channel (its only weight).
    private static func layerScale(_ layer: KerasLayerDescription, input: Int, _ context: inout KerasTranslationContext) throws {
        let channels = context.shape(of: input).channels
        let arrays = try context.weightArrays(layer, expected: 1, roles: "gamma")
        let gamma = try context.vector(layer, arrays[0], channels).floats().map(Double.init)
        try context.emitAffine(layer, scale: gamma, shift: [Double](repeating: 0, count: channels), input: input)
    }

    /// ConvNeXt's StochasticDepth drops residual paths in training only: the identity at inference.
    private static func stochasticDepth(_ layer: KerasLayerDescription, input: Int, _ context: inout KerasTranslationContext) throws {
        try context.emit(layer, .identity(reason: "stochastic_depth"), [input])
    }

    /// InceptionResNetV2's CustomScaleLayer: y = inputs[0] + inputs[1] * scale, read as the affine
    /// `<name>_scaled` = scale * inputs[1] followed by a sum under the layer's name.
    private static func customScale(_ layer: KerasLayerDescription, inputs: [Int], _ context: inout KerasTranslationContext) throws {
        guard inputs.count == 2 else { throw context.error(.badInput, layer, "CustomScaleLayer takes two inputs", found: "\(inputs.count)") }
        guard let scale = layer.config["scale"]?.double else { throw context.error(.badInput, layer, "CustomScaleLayer has no scale") }
        let channels = context.shape(of: inputs[1]).channels
        let affine = ChannelAffine(
            scale: WeightTensor(shape: [channels], values: [Float](repeating: Float(scale), count: channels)),
            shift: WeightTensor(shape: [channels], values: [Float](repeating: 0, count: channels)))
        let scaled = try context.emitInternal(name: "\(layer.name)_scaled", of: layer, .channelAffine(affine), [inputs[1]])
        let shapes = [context.shape(of: inputs[0]), context.shape(of: scaled)]
        guard shapes[0] == shapes[1] else {
            throw context.error(.badInput, layer, "CustomScaleLayer inputs differ in shape", found: shapes.map(\.description).joined(separator: ", "))
        }
        try context.emit(layer, .sum(ElementwiseSum()), [inputs[0], scaled])
    }
}
