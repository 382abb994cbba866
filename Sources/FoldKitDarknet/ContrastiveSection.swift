import FoldKitCore

/// [contrastive] (yolov4-tiny_contrastive.cfg): a training-only embedding loss. At inference darknet's
/// `forward_contrastive_layer` returns at once (`if (!state.train) return;`), leaving its buffer - the
/// input's size - at the zeros it was allocated with, and nothing reads it. FoldKit keeps it as an
/// identity of its input ("contrastive"), so the network's values are compared as usual; fixture packs
/// store darknet's zeros for it (`DarknetLayerOutput`). `yolo_layer` must name a [yolo] layer (absolute,
/// or negative relative to this one), as darknet's `parse_contrastive` requires.
enum ContrastiveSection {
    static func build(_ context: SectionContext) throws -> BuiltLayer {
        let reference = try context.int("yolo_layer", default: 0)
        let target = reference < 0 ? context.index + reference : reference
        guard reference != 0, target >= 0, target < context.index, target < context.builder.layers.count,
            case .detection(let head) = context.builder.layers[target].kind, head.kind == .yolo
        else {
            throw context.error(
                .badInput, "[contrastive] yolo_layer must name an earlier [yolo] layer", expected: "a [yolo] layer index",
                found: "yolo_layer=\(reference)")
        }
        return BuiltLayer(kind: .identity(reason: "contrastive"), inputs: [context.previous])
    }
}
