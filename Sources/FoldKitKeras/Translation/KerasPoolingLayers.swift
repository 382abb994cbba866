import FoldKitCore

/// MaxPooling2D / AveragePooling2D (strides default to the pool size; averages leave padding out)
/// and the global poolings.
enum KerasPoolingLayers {
    static func pooling(_ layer: KerasLayerDescription, input: Int, _ context: inout KerasTranslationContext) throws {
        let config = try KerasPoolingConfig(context.config(layer))
        let padding = try config.padding(for: context.shape(of: input))
        let (kh, kw) = config.pool
        let (sy, sx) = config.strides
        let kind: Pooling.Kind = layer.className.hasPrefix("Max") ? .max : .average
        try context.emit(
            layer,
            .pooling(
                Pooling(
                    kind: kind, kernelHeight: kh, kernelWidth: kw, strideY: sy, strideX: sx, padding: padding,
                    countIncludesPadding: false)), [input])
    }

    static func globalAverage(_ layer: KerasLayerDescription, input: Int, _ context: inout KerasTranslationContext) throws {
        try context.emit(layer, .globalAveragePool, [input])
    }

    static func globalMax(_ layer: KerasLayerDescription, input: Int, _ context: inout KerasTranslationContext) throws {
        try context.emit(layer, .globalMaxPool, [input])
    }
}
