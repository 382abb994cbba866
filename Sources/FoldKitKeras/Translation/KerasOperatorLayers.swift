import FoldKitCore

/// Translates the operator layers `KerasOperation` recognises (Docs/Formats/Keras.md, "Operator layers"):
///
/// - `x + c`, `x - c`, `c - x`, `x * c`, `x / c` with a constant c (a number, or one per channel) become a
///   per-channel affine y = scale * x + shift; `maximum(x, 0)` a ReLU.
/// - Two tensors: add -> sum (equal shapes) or broadcast merge; multiply -> product; subtract, divide,
///   maximum, minimum -> element-wise merge (a C x 1 x 1 operand broadcasts over H x W).
/// - Activations (`tf.nn.relu6`, `keras.ops.sigmoid`, `gelu` with its `approximate` flag, ...) -> activation.
/// - `tf.pad` / `ops.pad` with zeros: spatial edges -> zero padding, channels -> channel window.
/// - `tf.concat` / `ops.concatenate` on the channel axis, `tf.reshape` / `ops.reshape`, `reduce_mean` /
///   `ops.mean` over H and W (global average pooling), `x[...]` slices with step 1 (crop and channel window).
///
/// Anything else an operator layer asks for is refused naming the operation and the argument.
enum KerasOperatorLayers {
    static func translate(_ operation: KerasOperation, _ layer: KerasLayerDescription, inputs: [Int], _ context: inout KerasTranslationContext) throws
    {
        switch operation {
        case .add, .subtract, .multiply, .divide, .maximum, .minimum:
            try binary(operation, layer, inputs: inputs, &context)
        case .activation(let name):
            try activation(name, layer, input: first(layer, inputs, context), &context)
        case .pad:
            try pad(layer, input: first(layer, inputs, context), &context)
        case .concatenate:
            let axis = argument(layer, "axis", position: 1)
            try KerasMergeLayers.concatenate(layer, inputs: inputs, axisValue: axis ?? .number(-1), &context)
        case .reshape:
            guard let target = (argument(layer, "shape", position: 1) ?? layer.config["newshape"])?.array, let batch = target.first else {
                throw context.error(.badInput, layer, "reshape has no target shape")
            }
            guard batch.isNull || batch.int == -1 || batch.int == 1 else {
                throw context.error(.unsupported, layer, "reshape must keep the batch axis first", expected: "-1, None or 1", found: "\(batch)")
            }
            try KerasShapeLayers.reshape(layer, target: Array(target.dropFirst()), input: first(layer, inputs, context), &context)
        case .mean:
            try mean(layer, input: first(layer, inputs, context), &context)
        case .slice:
            try slice(layer, input: first(layer, inputs, context), &context)
        }
    }

    private static func first(_ layer: KerasLayerDescription, _ inputs: [Int], _ context: KerasTranslationContext) throws -> Int {
        guard inputs.count == 1, let input = inputs.first else {
            throw context.error(.unsupported, layer, "operation takes one tensor", expected: "1", found: "\(inputs.count) tensors")
        }
        return input
    }

    /// A call argument given by keyword (tf.keras kwargs, Keras 3 kwargs), by position (Keras 3 args), or in
    /// the config (Keras 3 operations keep their static arguments there).
    private static func argument(_ layer: KerasLayerDescription, _ keyword: String, position: Int) -> KerasJSON? {
        if case .value(let value)? = layer.call.keywords[keyword] { return value }
        if layer.call.positional.count > position, case .value(let value) = layer.call.positional[position] { return value }
        return layer.config[keyword]
    }

    // MARK: - arithmetic

    /// The two operands: tf.keras writes `x` first and `y` as a keyword, Keras 3 both as arguments.
    private static func operands(_ layer: KerasLayerDescription, _ context: KerasTranslationContext) throws -> (KerasOperand, KerasOperand) {
        var list = layer.call.positional
        if let y = layer.call.keywords["y"] { list.append(y) }
        if list.count == 1, case .tensors(let pair) = list[0], pair.count == 2 { list = [.tensor(pair[0]), .tensor(pair[1])] }
        guard list.count == 2 else {
            throw context.error(.unsupported, layer, "operation needs two operands", expected: "2", found: "\(list.count)")
        }
        return (list[0], list[1])
    }

    private static func binary(
        _ operation: KerasOperation, _ layer: KerasLayerDescription, inputs: [Int], _ context: inout KerasTranslationContext
    ) throws {
        let (a, b) = try operands(layer, context)
        switch (a, b) {
        case (.tensor(let i), .tensor(let j)):
            try tensors(operation, layer, inputs[i], inputs[j], &context)
        case (.tensor(let i), .value(let constant)):
            try withConstant(operation, layer, input: inputs[i], constant: constant, constantFirst: false, &context)
        case (.value(let constant), .tensor(let j)):
            try withConstant(operation, layer, input: inputs[j], constant: constant, constantFirst: true, &context)
        default:
            throw context.error(.unsupported, layer, "operation on these operands is not supported", found: "\(a), \(b)")
        }
    }

    private static func tensors(
        _ operation: KerasOperation, _ layer: KerasLayerDescription, _ a: Int, _ b: Int, _ context: inout KerasTranslationContext
    )
        throws
    {
        let (sa, sb) = (context.shape(of: a), context.shape(of: b))
        switch operation {
        case .add where sa == sb: try context.emit(layer, .sum(ElementwiseSum()), [a, b])
        case .multiply where sa == sb || (sa.channels == sb.channels && (sa.planeSize == 1 || sb.planeSize == 1)):
            try context.emit(layer, .product, [a, b])
        case .add: try context.emit(layer, .merge(ElementwiseMerge(.add)), [a, b])
        case .multiply: try context.emit(layer, .merge(ElementwiseMerge(.multiply)), [a, b])
        case .subtract: try context.emit(layer, .merge(ElementwiseMerge(.subtract)), [a, b])
        case .divide: try context.emit(layer, .merge(ElementwiseMerge(.divide)), [a, b])
        case .maximum: try context.emit(layer, .merge(ElementwiseMerge(.maximum)), [a, b])
        case .minimum: try context.emit(layer, .merge(ElementwiseMerge(.minimum)), [a, b])
        default: throw context.error(.unsupported, layer, "not an arithmetic operation")
        }
    }

    private static func withConstant(
        _ operation: KerasOperation, _ layer: KerasLayerDescription, input: Int, constant: KerasJSON, constantFirst: Bool,
        _ context: inout KerasTranslationContext
    ) throws {
        let channels = context.shape(of: input).channels
        let c = try context.perChannel(constant, channels: channels, layer, what: "constant operand")
        let ones = [Double](repeating: 1, count: channels)
        let zeros = [Double](repeating: 0, count: channels)
        switch operation {
        case .add: try context.emitAffine(layer, scale: ones, shift: c, input: input)
        case .subtract where constantFirst: try context.emitAffine(layer, scale: ones.map { -$0 }, shift: c, input: input)
        case .subtract: try context.emitAffine(layer, scale: ones, shift: c.map { -$0 }, input: input)
        case .multiply: try context.emitAffine(layer, scale: c, shift: zeros, input: input)
        case .divide where !constantFirst: try context.emitAffine(layer, scale: c.map { 1 / $0 }, shift: zeros, input: input)
        case .maximum where c.allSatisfy { $0 == 0 }: try context.emit(layer, .activation(.relu), [input])
        default:
            throw context.error(
                .unsupported, layer, "this operation with a constant operand is not supported",
                expected: "x + c, x - c, c - x, x * c, x / c, maximum(x, 0)", found: "\(operation) with constant \(constant)")
        }
    }

    // MARK: - activations

    private static func activation(_ name: String, _ layer: KerasLayerDescription, input: Int, _ context: inout KerasTranslationContext) throws {
        let choice: KerasActivationChoice
        if name == "gelu" {
            // tf.nn.gelu defaults to the erf form, keras.ops.gelu (Keras 3) to the tanh approximation.
            let approximate = argument(layer, "approximate", position: 1)?.bool ?? (layer.className != "TFOpLambda")
            choice = .plain(approximate ? .gelu : .geluErf)
        } else {
            // Operation layers exist in Keras 3 only, where hard_sigmoid is relu6(x + 3) / 6.
            choice = try KerasActivationChoice.named(
                name, context.config(layer), kerasMajor: layer.className == "TFOpLambda" ? context.kerasMajor : 3)
        }
        try context.emitActivation(layer, choice, input: input)
    }

    // MARK: - data movement

    /// Which axis of the activation a Keras axis index (batch axis included, negative from the end) is.
    private enum Axis { case batch, channels, height, width }

    private static func axis(_ index: Int, rank: Int, _ layer: KerasLayerDescription, _ context: KerasTranslationContext) throws -> Axis {
        let a = index < 0 ? index + rank : index
        guard (0..<rank).contains(a) else {
            throw context.error(.badInput, layer, "axis out of range", expected: "-\(rank) ..< \(rank)", found: "\(index)")
        }
        if a == 0 { return .batch }
        if rank == 2 { return .channels }
        guard rank == 4 else { throw context.error(.unsupported, layer, "operation on a tensor of rank \(rank)", expected: "rank 2 or 4") }
        let order: [Axis] = context.channelsFirst ? [.batch, .channels, .height, .width] : [.batch, .height, .width, .channels]
        return order[a]
    }

    /// `tf.pad(x, paddings, mode="CONSTANT", constant_values=0)` / `ops.pad(x, pad_width)`.
    private static func pad(_ layer: KerasLayerDescription, input: Int, _ context: inout KerasTranslationContext) throws {
        guard let rows = (argument(layer, "paddings", position: 1) ?? layer.config["pad_width"])?.array else {
            throw context.error(.badInput, layer, "pad has no paddings")
        }
        let mode = (argument(layer, "mode", position: 2) ?? .string("constant")).string?.lowercased() ?? "?"
        let fill = argument(layer, "constant_values", position: 3)
        guard mode == "constant", fill == nil || fill?.isNull == true || fill?.double == 0 else {
            throw context.error(
                .unsupported, layer, "only padding with zeros is supported", expected: "mode constant, value 0", found: "\(mode) \(fill ?? .null)")
        }
        var edges = Padding2D.zero
        var channelsBefore = 0, channelsAfter = 0
        for (index, row) in rows.enumerated() {
            guard let pair = row.array, pair.count == 2, let before = pair[0].int, let after = pair[1].int, before >= 0, after >= 0 else {
                throw context.error(.badInput, layer, "padding entry is not a pair of non-negative integers", found: "\(row)")
            }
            switch try axis(index, rank: rows.count, layer, context) {
            case .batch:
                guard before == 0, after == 0 else {
                    throw context.error(.unsupported, layer, "padding the batch axis is not supported", found: "\(row)")
                }
            case .channels: (channelsBefore, channelsAfter) = (before, after)
            case .height: (edges.top, edges.bottom) = (before, after)
            case .width: (edges.left, edges.right) = (before, after)
            }
        }
        let channels = context.shape(of: input).channels
        let window = ChannelRange(offset: -channelsBefore, channels: channels + channelsBefore + channelsAfter)
        switch (edges == .zero, channelsBefore + channelsAfter == 0) {
        case (true, true): try context.emit(layer, .identity(reason: "pad(0)"), [input])
        case (false, true): try context.emit(layer, .zeroPad(edges), [input])
        case (true, false): try context.emit(layer, .channelRange(window), [input])
        case (false, false):
            let spatial = try context.emitInternal(name: "\(layer.name)_spatial", of: layer, .zeroPad(edges), [input])
            try context.emit(layer, .channelRange(window), [spatial])
        }
    }

    /// `reduce_mean` / `ops.mean` over exactly the spatial axes: global average pooling.
    private static func mean(_ layer: KerasLayerDescription, input: Int, _ context: inout KerasTranslationContext) throws {
        guard let value = argument(layer, "axis", position: 1) else {
            throw context.error(.unsupported, layer, "mean over every axis is not supported", expected: "the spatial axes")
        }
        let axes = try (value.array ?? [value]).map { entry -> Axis in
            guard let index = entry.int else { throw context.error(.badInput, layer, "axis is not an integer", found: "\(entry)") }
            return try axis(index, rank: 4, layer, context)
        }
        guard axes.count == 2, Set(axes.map { "\($0)" }) == ["height", "width"] else {
            throw context.error(.unsupported, layer, "mean is supported over the spatial axes only", expected: "H and W", found: "\(value)")
        }
        try context.emit(layer, .globalAveragePool, [input])
    }

    /// One axis of a slice: Python's start:stop:step, or an index (which drops the axis).
    private struct SliceAxis {
        var start: Int?, stop: Int?, step: Int?, index: Int?, isEllipsis = false
    }

    private static func sliceAxes(_ layer: KerasLayerDescription, _ context: KerasTranslationContext) throws -> [SliceAxis] {
        let spec: KerasJSON?
        if case .value(let value)? = layer.call.keywords["slice_spec"] {
            spec = value
        } else if layer.call.positional.count > 1, case .value(let value) = layer.call.positional[1] {
            spec = value
        } else {
            spec = nil
        }
        guard let spec else { throw context.error(.badInput, layer, "slice has no slice specification") }
        return try (spec.array ?? [spec]).map { entry in
            if let index = entry.int { return SliceAxis(index: index) }
            if entry.string == "..." || entry.string == "Ellipsis" || entry["class_name"]?.string == "__ellipsis__" {
                return SliceAxis(isEllipsis: true)
            }
            let fields = entry["class_name"]?.string == "__slice__" ? entry["config"] : entry
            guard let fields, fields.object != nil else {
                throw context.error(.unsupported, layer, "slice entry is not supported", found: "\(entry)")
            }
            return SliceAxis(start: fields["start"]?.int, stop: fields["stop"]?.int, step: fields["step"]?.int)
        }
    }

    /// `x[a:b, c:d, ...]` with step 1: rows and columns cropped, channels windowed.
    private static func slice(_ layer: KerasLayerDescription, input: Int, _ context: inout KerasTranslationContext) throws {
        let shape = context.shape(of: input)
        let rank = context.isVector(shape) ? 2 : 4
        var axes = try sliceAxes(layer, context)
        if let ellipsis = axes.firstIndex(where: \.isEllipsis) {
            axes.replaceSubrange(ellipsis...ellipsis, with: [SliceAxis](repeating: SliceAxis(), count: max(0, rank - axes.count + 1)))
        }
        guard axes.count <= rank else {
            throw context.error(.badInput, layer, "slice has more entries than the tensor has axes", expected: "<= \(rank)", found: "\(axes.count)")
        }
        var edges = Padding2D.zero
        var window = ChannelRange(offset: 0, channels: shape.channels)
        for (index, entry) in axes.enumerated() {
            let role = try axis(index, rank: rank, layer, context)
            let size: Int
            switch role {
            case .batch: size = 1
            case .channels: size = shape.channels
            case .height: size = shape.height
            case .width: size = shape.width
            }
            guard entry.index == nil, entry.step == nil || entry.step == 1 else {
                throw context.error(.unsupported, layer, "slices with an index or a step other than 1 are not supported", found: "axis \(index)")
            }
            // Python's rules: negative bounds count from the end, and both are clamped to [0, size].
            func bound(_ value: Int?, _ fallback: Int) -> Int { min(max(value.map { $0 < 0 ? $0 + size : $0 } ?? fallback, 0), size) }
            let (start, stop) = (bound(entry.start, 0), bound(entry.stop, size))
            guard stop > start else { throw context.error(.unsupported, layer, "slice is empty", found: "axis \(index): \(start)..<\(stop)") }
            switch role {
            case .batch:
                guard start == 0 else { throw context.error(.unsupported, layer, "slicing the batch axis is not supported") }
            case .channels: window = ChannelRange(offset: start, channels: stop - start)
            case .height: (edges.top, edges.bottom) = (start, size - stop)
            case .width: (edges.left, edges.right) = (start, size - stop)
            }
        }
        let keepsChannels = window.offset == 0 && window.channels == shape.channels
        switch (edges == .zero, keepsChannels) {
        case (true, true): try context.emit(layer, .identity(reason: "slice(all)"), [input])
        case (false, true): try context.emit(layer, .crop(edges), [input])
        case (true, false): try context.emit(layer, .channelRange(window), [input])
        case (false, false):
            let spatial = try context.emitInternal(name: "\(layer.name)_spatial", of: layer, .crop(edges), [input])
            try context.emit(layer, .channelRange(window), [spatial])
        }
    }
}
