import FoldKitCore

/// Sections that read layers other than the previous one. References (`layers=`, `from=`) are
/// relative when negative (-1 = the previous layer) and absolute section indices otherwise.
enum RoutingSections {
    /// [route] `layers=` (required), `groups=` (1), `group_id=` (0): channel concatenation of the
    /// listed layers; with groups > 1 each contributes its channels
    /// [group_id*C/groups, (group_id+1)*C/groups) (darknet's `forward_route_layer`).
    static func route(_ context: SectionContext) throws -> BuiltLayer {
        guard let option = context.section.option("layers"), let references = try context.intList("layers"), !references.isEmpty else {
            throw context.error(.badInput, "[route] needs layers=", expected: "layers=<index>[,<index>...]")
        }
        let inputs = try references.map { try context.resolve($0, option: option) }
        let groups = try context.int("groups", default: 1)
        let groupID = try context.int("group_id", default: 0)
        return BuiltLayer(kind: .concatenation(Concatenation(groups: groups, groupID: groupID)), inputs: inputs)
    }

    /// [shortcut] `from=` (required, one or more), `activation` (linear): out = act(previous + from...),
    /// with darknet's rules for different channel counts and sizes (see `ElementwiseSum`).
    /// Refused: `weights_type` other than none (learned per-feature/per-channel weights).
    static func shortcut(_ context: SectionContext) throws -> BuiltLayer {
        try context.refuse("weights_type", unless: "none", because: "weighted shortcuts are not supported")
        guard let option = context.section.option("from"), let references = try context.intList("from"), !references.isEmpty else {
            throw context.error(.badInput, "[shortcut] needs from=", expected: "from=<index>")
        }
        let from = try references.map { try context.resolve($0, option: option) }
        let activation = try DarknetActivation.read(context, default: "linear")
        return BuiltLayer(kind: .sum(ElementwiseSum(activation: activation)), inputs: [context.previous] + from)
    }

    /// [scale_channels] `from=`: out[c,y,x] = from[c,y,x] * previous[c] where the previous layer is
    /// C x 1 x 1 (squeeze-and-excite). Inputs [from, previous]; output has `from`'s shape.
    /// Refused: scale_wh=1 (scaling by a spatial map), an activation other than linear.
    static func scaleChannels(_ context: SectionContext) throws -> BuiltLayer {
        try context.refuse("scale_wh", because: "spatial scaling is not supported")
        let from = try singleReference(context)
        try requireLinear(context)
        let scales = context.inputShape
        let target = context.builder.shape(of: from)
        guard scales.height == 1, scales.width == 1, scales.channels == target.channels else {
            throw context.error(
                .badInput, "[scale_channels] needs a C x 1 x 1 previous layer with the channels of layer \(from)",
                expected: "\(target.channels)x1x1", found: "\(scales)")
        }
        return BuiltLayer(kind: .product, inputs: [from, context.previous])
    }

    /// [sam] `from=`: out = from * previous element-wise (spatial attention). Inputs [from, previous];
    /// both must have the same shape. Refused: an activation other than linear.
    static func sam(_ context: SectionContext) throws -> BuiltLayer {
        let from = try singleReference(context)
        try requireLinear(context)
        let target = context.builder.shape(of: from)
        guard context.inputShape == target else {
            throw context.error(
                .badInput, "[sam] needs the previous layer and layer \(from) to have the same shape",
                expected: "\(target)", found: "\(context.inputShape)")
        }
        return BuiltLayer(kind: .product, inputs: [from, context.previous])
    }

    private static func singleReference(_ context: SectionContext) throws -> Int {
        guard let option = context.section.option("from"), let references = try context.intList("from"), references.count == 1 else {
            throw context.error(.badInput, "\(context.section.header) needs exactly one from=", expected: "from=<index>")
        }
        return try context.resolve(references[0], option: option)
    }

    private static func requireLinear(_ context: SectionContext) throws {
        let activation = try DarknetActivation.read(context, default: "linear")
        if activation != .linear, let option = context.section.option("activation") {
            throw context.error(
                .unsupported, "an activation after \(context.section.header) is not supported", at: option,
                expected: "linear", found: option.value)
        }
    }
}
