import FoldKitCore

/// [avgpool] (alias [avg]): the mean over H x W per channel; output C x 1 x 1.
enum GlobalAveragePoolSection {
    static func build(_ context: SectionContext) throws -> BuiltLayer {
        BuiltLayer(kind: .globalAveragePool, inputs: [context.previous])
    }
}
