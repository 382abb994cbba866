import FoldKitCore

/// [activation]: `activation` (linear) applied element-wise.
enum ActivationSection {
    static func build(_ context: SectionContext) throws -> BuiltLayer {
        BuiltLayer(kind: .activation(try DarknetActivation.read(context, default: "linear")), inputs: [context.previous])
    }
}
