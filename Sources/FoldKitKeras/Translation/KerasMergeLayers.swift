import FoldKitCore

/// Concatenate (over the channel axis only), Add, Multiply, Subtract, Average, Maximum, Minimum, and
/// Keras 1 Merge (modes sum, mul, concat, ave, max).
enum KerasMergeLayers {
    /// Concatenate on the channel axis, or (channels-last) on the outermost axis after the batch: H of a
    /// (H, W, C) map, a of a Reshape's (a, b). The outermost axis is contiguous in Keras's element order, so
    /// that concatenation is each input flattened in Keras order (`<name>_flat<k>`), the vectors joined
    /// (`<name>_joined`) and the result reshaped back under the layer's name (BlazeFace's anchor heads).
    static func concatenate(_ layer: KerasLayerDescription, inputs: [Int], axisValue: KerasJSON?, _ context: inout KerasTranslationContext) throws {
        guard let first = inputs.first else { throw context.error(.badInput, layer, "Concatenate has no inputs") }
        let rank = context.kerasRank(of: first)
        if !context.channelsFirst, rank == 3 || rank == 4, let axis = axisValue?.int ?? axisValue?.array?.first?.int,
            axis == 1 || axis == 1 - rank, inputs.allSatisfy({ context.kerasRank(of: $0) == rank })
        {
            return try concatenateOutermost(layer, inputs: inputs, rank: rank, &context)
        }
        for input in inputs {
            try context.checkChannelAxis(layer, axisValue: axisValue, default: -1, shape: context.shape(of: input), what: "concatenation axis")
        }
        try context.emit(layer, .concatenation(Concatenation()), inputs)
    }

    private static func concatenateOutermost(
        _ layer: KerasLayerDescription, inputs: [Int], rank: Int, _ context: inout KerasTranslationContext
    ) throws {
        let shapes = inputs.map { context.shape(of: $0) }
        // Rank 3 (a, b) is held as b x 1 x a: the outer axis is the width. Rank 4 (H, W, C): the height.
        let inner = { (s: ActivationShape) in rank == 3 ? [s.channels, s.height] : [s.channels, s.width] }
        guard shapes.allSatisfy({ inner($0) == inner(shapes[0]) }) else {
            throw context.error(
                .badInput, layer, "Concatenate inputs differ off the concatenation axis", found: shapes.map(\.description).joined(separator: ", "))
        }
        var flat: [Int] = []
        for (k, input) in inputs.enumerated() {
            flat.append(
                try context.emitInternal(
                    name: "\(layer.name)_flat\(k)", of: layer, .reshape(Reshape(target: .vector(shapes[k].count), order: .channelsLast)),
                    [input]))
        }
        let joined = try context.emitInternal(name: "\(layer.name)_joined", of: layer, .concatenation(Concatenation()), flat)
        let outer = shapes.reduce(0) { $0 + (rank == 3 ? $1.width : $1.height) }
        let s = shapes[0]
        let target =
            rank == 3
            ? ActivationShape(channels: s.channels, height: s.height, width: outer)
            : ActivationShape(channels: s.channels, height: outer, width: s.width)
        let index = try context.emit(layer, .reshape(Reshape(target: target, order: .channelsLast)), [joined])
        context.setKerasRank(rank, of: index)
    }

    static func add(_ layer: KerasLayerDescription, inputs: [Int], _ context: inout KerasTranslationContext) throws {
        let shapes = inputs.map { context.shape(of: $0) }
        guard inputs.count >= 2, let first = shapes.first, shapes.allSatisfy({ $0 == first }) else {
            throw context.error(
                .unsupported, layer, "Add needs two or more inputs of the same shape", found: shapes.map { $0.description }.joined(separator: ", "))
        }
        try context.emit(layer, .sum(ElementwiseSum()), inputs)
    }

    static func multiply(_ layer: KerasLayerDescription, inputs: [Int], _ context: inout KerasTranslationContext) throws {
        guard inputs.count == 2 else {
            throw context.error(.unsupported, layer, "Multiply is supported for two inputs", found: "\(inputs.count) inputs")
        }
        try context.emit(layer, .product, inputs)
    }

    /// Subtract (two inputs: a - b), Average, Maximum and Minimum (two or more) as an element-wise merge.
    static func merge(_ layer: KerasLayerDescription, _ operation: MergeOperation, inputs: [Int], _ context: inout KerasTranslationContext) throws {
        let range = operation == .subtract ? 2...2 : 2...Int.max
        guard range.contains(inputs.count) else {
            throw context.error(
                .badInput, layer, "\(layer.className) takes \(operation == .subtract ? "two inputs" : "two or more inputs")", found: "\(inputs.count)"
            )
        }
        try context.emit(layer, .merge(ElementwiseMerge(operation)), inputs)
    }

    static func keras1Merge(_ layer: KerasLayerDescription, inputs: [Int], _ context: inout KerasTranslationContext) throws {
        switch layer.config["mode"]?.string ?? "sum" {
        case "sum": try add(layer, inputs: inputs, &context)
        case "mul": try multiply(layer, inputs: inputs, &context)
        case "concat": try concatenate(layer, inputs: inputs, axisValue: layer.config["concat_axis"], &context)
        case "ave": try merge(layer, .average, inputs: inputs, &context)
        case "max": try merge(layer, .maximum, inputs: inputs, &context)
        case let mode:
            throw context.error(
                .unsupported, layer, "Keras 1 Merge mode '\(mode)' is not supported", expected: "sum, mul, concat, ave or max", found: mode)
        }
    }
}
