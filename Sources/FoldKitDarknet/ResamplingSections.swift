import FoldKitCore

/// Sections that change the spatial size without weights.
enum ResamplingSections {
    /// [upsample] `stride` (2), `scale` (1): nearest neighbour, out = scale * in[y/stride][x/stride].
    /// Refused: a negative stride (darknet's reverse mode, a strided downsample).
    static func upsample(_ context: SectionContext) throws -> BuiltLayer {
        let stride = try context.int("stride", default: 2)
        guard stride >= 1 else {
            if stride < 0, let option = context.section.option("stride") {
                throw context.error(
                    .unsupported, "[upsample] with a negative stride (downsampling) is not supported", at: option, found: option.value)
            }
            throw context.error(.badInput, "[upsample] stride must be at least 1", found: "\(stride)")
        }
        let scale = try context.float("scale", default: 1)
        return BuiltLayer(kind: .upsample(Upsample(strideY: stride, strideX: stride, scale: scale)), inputs: [context.previous])
    }

    /// [reorg] (darknet's `reorg_old` layer, YOLOv2's passthrough) and [reorg3d]: `stride` (1),
    /// space-to-depth in darknet's own element order. Refused: reverse=1 (depth-to-space).
    static func reorg(_ context: SectionContext, flavor: Reorg.Flavor) throws -> BuiltLayer {
        try context.refuse("reverse", because: "reverse reorg (depth-to-space) is not supported")
        let stride = try context.int("stride", default: 1)
        guard stride >= 1 else {
            throw context.error(.badInput, "reorg stride must be at least 1", found: "\(stride)")
        }
        return BuiltLayer(kind: .reorg(Reorg(stride: stride, flavor: flavor)), inputs: [context.previous])
    }
}
