import FoldKitCore
import Foundation

/// Layers that move or pass elements without arithmetic: dropout-like no-ops, Flatten, Reshape,
/// ZeroPadding2D, Cropping2D, UpSampling2D and YAD2K's space_to_depth_x2 Lambda.
enum KerasShapeLayers {
    /// Dropout, noise and regularisation layers: identities at inference.
    static func inferenceIdentity(_ layer: KerasLayerDescription, input: Int, _ context: inout KerasTranslationContext) throws {
        // Dropout and noise layers, and the augmentation layers (RandomFlip, ...), which Keras skips at inference.
        try context.emit(layer, .identity(reason: layer.className.hasPrefix("Random") ? "augmentation" : "dropout"), [input])
    }

    static func flatten(_ layer: KerasLayerDescription, input: Int, _ context: inout KerasTranslationContext) throws {
        let shape = context.shape(of: input)
        try context.emit(layer, .reshape(Reshape(target: .vector(shape.count), order: context.order)), [input])
    }

    static func reshape(_ layer: KerasLayerDescription, input: Int, _ context: inout KerasTranslationContext) throws {
        guard let raw = layer.config["target_shape"]?.array else { throw context.error(.badInput, layer, "Reshape has no target_shape") }
        try reshape(layer, target: raw, input: input, &context)
    }

    /// Reshape to `raw` (the target without the batch axis; one entry may be -1 or null).
    static func reshape(_ layer: KerasLayerDescription, target raw: [KerasJSON], input: Int, _ context: inout KerasTranslationContext) throws {
        let shape = context.shape(of: input)
        var dims = raw.map { $0.int ?? -1 }
        let known = dims.filter { $0 != -1 }.reduce(1, *)
        if let unknown = dims.firstIndex(of: -1) {
            guard known > 0, shape.count % known == 0 else {
                throw context.error(
                    .badInput, layer, "Reshape target does not divide the element count", expected: "divisor of \(shape.count)", found: "\(raw)")
            }
            dims[unknown] = shape.count / known
        }
        let channelsFirst = context.channelsFirst
        let target: ActivationShape
        switch (dims.count, channelsFirst) {
        case (1, _): target = .vector(dims[0])
        case (2, false): target = ActivationShape(channels: dims[1], height: 1, width: dims[0])
        case (3, false): target = ActivationShape(channels: dims[2], height: dims[0], width: dims[1])
        case (let n, false) where n > 3:
            // (H, W, d3, d4, ...) keeps the channels-last element order with the trailing axes merged into channels.
            target = ActivationShape(channels: dims[2...].reduce(1, *), height: dims[0], width: dims[1])
        case (3, true): target = ActivationShape(channels: dims[0], height: dims[1], width: dims[2])
        default:
            throw context.error(
                .unsupported, layer, "Reshape target of rank \(dims.count) in a \(channelsFirst ? "channels-first" : "channels-last") model",
                found: "\(dims)")
        }
        let index = try context.emit(layer, .reshape(Reshape(target: target, order: context.order)), [input])
        if dims.count == 2 && !channelsFirst { context.setKerasRank(3, of: index) }
    }

    static func zeroPadding(_ layer: KerasLayerDescription, input: Int, _ context: inout KerasTranslationContext) throws {
        try context.emit(layer, .zeroPad(try context.config(layer).edges("padding", default: 1)), [input])
    }

    static func cropping(_ layer: KerasLayerDescription, input: Int, _ context: inout KerasTranslationContext) throws {
        try context.emit(layer, .crop(try context.config(layer).edges("cropping", default: 0)), [input])
    }

    /// UpSampling2D: 'nearest' repeats, 'bilinear' interpolates as tf.image.resize does (half-pixel centres).
    static func upsampling(_ layer: KerasLayerDescription, input: Int, _ context: inout KerasTranslationContext) throws {
        let values = context.config(layer)
        let interpolation: Upsample.Interpolation
        switch values["interpolation"]?.string ?? "nearest" {
        case "nearest": interpolation = .nearest
        case "bilinear": interpolation = .bilinear
        case let mode:
            throw values.error(.unsupported, "upsampling interpolation '\(mode)' is not supported", expected: "nearest or bilinear", found: mode)
        }
        let (sy, sx) = try values.pair("size", default: (2, 2))
        try context.emit(layer, .upsample(Upsample(strideY: sy, strideX: sx, interpolation: interpolation)), [input])
    }

    static func lambda(_ layer: KerasLayerDescription, input: Int, _ context: inout KerasTranslationContext) throws {
        guard isSpaceToDepthX2(layer) else {
            throw context.error(
                .unsupported, layer, "Lambda layers run arbitrary Python and are not supported (only YAD2K's space_to_depth_x2 is recognised)")
        }
        guard !context.channelsFirst else { throw context.error(.unsupported, layer, "space_to_depth_x2 in a channels-first model is not supported") }
        try context.emit(layer, .reorg(Reorg(stride: 2, flavor: .spaceToDepth)), [input])
    }

    /// YAD2K wrote the YOLOv2 passthrough as `Lambda(space_to_depth_x2, ..., name='space_to_depth_x2')`.
    /// Recognised by the layer name or by the function's name in the serialized function (plain text,
    /// or inside the base64 marshal bytes that Keras writes for Python functions).
    private static func isSpaceToDepthX2(_ layer: KerasLayerDescription) -> Bool {
        if layer.name.contains("space_to_depth_x2") { return true }
        let needle = "space_to_depth_x2"
        for text in (layer.config["function"]?.allStrings ?? []) {
            if text.contains(needle) { return true }
            let compact = text.filter { !$0.isWhitespace }
            if let data = Data(base64Encoded: compact), data.range(of: Data(needle.utf8)) != nil { return true }
        }
        return false
    }
}
