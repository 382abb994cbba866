import FoldKitCore

/// [dropout], [cost], [empty]/[silence]: pass the input through at inference.
enum IdentitySection {
    static func build(_ context: SectionContext, reason: String) throws -> BuiltLayer {
        BuiltLayer(kind: .identity(reason: reason), inputs: [context.previous])
    }
}
