import FoldKitCore

/// Concatenate (over the channel axis only), Add, Multiply, Subtract, Average, Maximum, Minimum, and
/// Keras 1 Merge (modes sum, mul, concat, ave, max).
enum KerasMergeLayers {
    static func concatenate(_ layer: KerasLayerDescription, inputs: [Int], axisValue: KerasJSON?, _ context: inout KerasTranslationContext) throws {
        guard inputs.count >= 1 else { throw context.error(.badInput, layer, "Concatenate has no inputs") }
        for input in inputs {
            try context.checkChannelAxis(layer, axisValue: axisValue, default: -1, shape: context.shape(of: input), what: "concatenation axis")
        }
        try context.emit(layer, .concatenation(Concatenation()), inputs)
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
