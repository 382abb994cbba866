import FoldKitCore

/// Activation, ReLU, LeakyReLU, ELU, ThresholdedReLU, PReLU and Softmax layers.
enum KerasActivationLayers {
    static func activation(_ layer: KerasLayerDescription, input: Int, _ context: inout KerasTranslationContext) throws {
        let values = context.config(layer)
        guard let name = values["activation"]?.string ?? values["activation"]?["class_name"]?.string else {
            throw values.error(.badInput, "Activation layer has no activation name")
        }
        try context.emitActivation(layer, try KerasActivationChoice.named(name, values, kerasMajor: context.kerasMajor), input: input)
    }

    /// ReLU(max_value, negative_slope, threshold): plain relu, relu6, or the general clipped form.
    static func relu(_ layer: KerasLayerDescription, input: Int, _ context: inout KerasTranslationContext) throws {
        let values = context.config(layer)
        let maxValue = values["max_value"]?.double
        let slope = values["negative_slope"]?.double ?? 0
        let threshold = values["threshold"]?.double ?? 0
        let kind: Activation
        if slope == 0 && threshold == 0 && maxValue == nil {
            kind = .relu
        } else if slope == 0 && threshold == 0 && maxValue == 6 {
            kind = .relu6
        } else {
            kind = .clippedRelu(maxValue: maxValue.map { Float($0) }, negativeSlope: Float(slope), threshold: Float(threshold))
        }
        try context.emit(layer, .activation(kind), [input])
    }

    static func leakyRelu(_ layer: KerasLayerDescription, input: Int, _ context: inout KerasTranslationContext) throws {
        let values = context.config(layer)
        let slope = values["negative_slope"]?.double ?? values["alpha"]?.double ?? 0.3
        try context.emit(layer, .activation(.leaky(slope: Float(slope))), [input])
    }

    static func elu(_ layer: KerasLayerDescription, input: Int, _ context: inout KerasTranslationContext) throws {
        try context.emit(layer, .activation(.elu(alpha: Float(layer.config["alpha"]?.double ?? 1))), [input])
    }

    static func thresholdedRelu(_ layer: KerasLayerDescription, input: Int, _ context: inout KerasTranslationContext) throws {
        let theta = layer.config["theta"]?.double ?? 1
        try context.emit(layer, .activation(.clippedRelu(maxValue: nil, negativeSlope: 0, threshold: Float(theta))), [input])
    }

    static func softmax(_ layer: KerasLayerDescription, input: Int, _ context: inout KerasTranslationContext) throws {
        try context.checkChannelAxis(layer, axisValue: layer.config["axis"], default: -1, shape: context.shape(of: input), what: "softmax axis")
        try context.emit(layer, .softmax(.perPixelChannels), [input])
    }

    /// PReLU: alpha stored as the input shape without batch, shared axes set to 1 ((H, W, C) or
    /// (C, H, W)); becomes per-channel [C] when only the channel axis varies, else per-element [C, H, W].
    static func prelu(_ layer: KerasLayerDescription, input: Int, _ context: inout KerasTranslationContext) throws {
        let shape = context.shape(of: input)
        let arrays = try context.weightArrays(layer, expected: 1, roles: "alpha")
        let a = arrays[0]
        if context.isVector(shape) && shape.height == 1 {
            if a.values.count == shape.channels {
                try context.emit(layer, .prelu(alpha: WeightTensor(shape: [shape.channels], values: a.values)), [input])
                return
            }
        }
        let dims = a.shape.count == 3 ? a.shape : (a.shape.count == 1 && context.isVector(shape) ? [1, 1, a.shape[0]] : [])
        guard dims.count == 3 else {
            throw context.error(.badInput, layer, "PReLU alpha shape", expected: "rank 3", found: "\(a.shape)")
        }
        let channelsFirst = context.channelsFirst
        let (ah, aw, ac) = channelsFirst ? (dims[1], dims[2], dims[0]) : (dims[0], dims[1], dims[2])
        guard [1, shape.height].contains(ah), [1, shape.width].contains(aw), [1, shape.channels].contains(ac) else {
            throw context.error(
                .badInput, layer, "PReLU alpha shape does not fit the input", expected: "broadcastable to \(shape)", found: "\(a.shape)")
        }
        if ah == 1 && aw == 1 && ac == shape.channels {
            try context.emit(layer, .prelu(alpha: WeightTensor(shape: [ac], values: a.values)), [input])
            return
        }
        var full = [Float](repeating: 0, count: shape.count)
        for c in 0..<shape.channels {
            for y in 0..<shape.height {
                for x in 0..<shape.width {
                    let (cy, cx, cc) = (ah == 1 ? 0 : y, aw == 1 ? 0 : x, ac == 1 ? 0 : c)
                    let src = channelsFirst ? (cc * ah + cy) * aw + cx : (cy * aw + cx) * ac + cc
                    full[(c * shape.height + y) * shape.width + x] = a.values[src]
                }
            }
        }
        try context.emit(layer, .prelu(alpha: WeightTensor(shape: [shape.channels, shape.height, shape.width], values: full)), [input])
    }
}
