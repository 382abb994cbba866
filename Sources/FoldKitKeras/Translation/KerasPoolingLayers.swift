import FoldKitCore

/// MaxPooling2D / AveragePooling2D (strides default to the pool size; averages leave padding out)
/// and the global poolings.
enum KerasPoolingLayers {
    static func pooling(_ layer: KerasLayerDescription, input: Int, _ context: inout KerasTranslationContext) throws {
        let values = context.config(layer)
        let shape = context.shape(of: input)
        let (kh, kw) = try values.pair("pool_size", default: (2, 2))
        let strides = values["strides"]
        let (sy, sx) = (strides == nil || strides?.isNull == true) ? (kh, kw) : try values.pair("strides", default: (kh, kw))
        let padding = try values.spatialPadding(shape, kernel: (kh, kw), stride: (sy, sx), dilation: (1, 1))
        let kind: Pooling.Kind = layer.className.hasPrefix("Max") ? .max : .average
        try context.emit(layer, .pooling(Pooling(kind: kind, kernelHeight: kh, kernelWidth: kw, strideY: sy, strideX: sx, padding: padding,
                                                 countIncludesPadding: false)), [input])
    }

    static func globalAverage(_ layer: KerasLayerDescription, input: Int, _ context: inout KerasTranslationContext) throws {
        try context.emit(layer, .globalAveragePool, [input])
    }

    static func globalMax(_ layer: KerasLayerDescription, input: Int, _ context: inout KerasTranslationContext) throws {
        try context.emit(layer, .globalMaxPool, [input])
    }
}
