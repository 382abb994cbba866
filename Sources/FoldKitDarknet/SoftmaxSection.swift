import FoldKitCore

/// [softmax] (alias [soft]): softmax over each of `groups` (1) contiguous runs of the flattened
/// channel-major input (darknet's `softmax_cpu` with batch offsets `inputs/groups`).
/// Refused: temperature other than 1, tree= (hierarchical softmax), spatial=.
enum SoftmaxSection {
    static func build(_ context: SectionContext) throws -> BuiltLayer {
        let groups = try context.int("groups", default: 1)
        let temperature = try context.float("temperature", default: 1)
        if temperature != 1, let option = context.section.option("temperature") {
            throw context.error(.unsupported, "softmax temperature other than 1 is not supported", at: option, expected: "1", found: option.value)
        }
        if let option = context.section.option("tree") {
            throw context.error(.unsupported, "hierarchical (tree) softmax is not supported", at: option)
        }
        try context.refuse("spatial", because: "per-pixel softmax is not supported")
        let count = context.inputShape.count
        guard groups >= 1, count % groups == 0 else {
            throw context.error(.badInput, "softmax groups must divide the input size", found: "groups=\(groups), inputs=\(count)")
        }
        return BuiltLayer(kind: .softmax(.flattened(groups: groups)), inputs: [context.previous])
    }
}
