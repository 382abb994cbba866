import FoldKitCore

/// [softmax] (alias [soft]): softmax over each of `groups` (1) contiguous runs of the flattened
/// channel-major input (darknet's `softmax_cpu` with batch offsets `inputs/groups`), of x / `temperature`
/// (1; cifar.test.cfg uses 3). Refused: tree= (hierarchical softmax), spatial=.
enum SoftmaxSection {
    static func build(_ context: SectionContext) throws -> BuiltLayer {
        let groups = try context.int("groups", default: 1)
        let temperature = try context.float("temperature", default: 1)
        guard temperature.isFinite, temperature > 0 else {
            throw context.error(.badInput, "softmax temperature must be a positive number", found: "temperature=\(temperature)")
        }
        if let option = context.section.option("tree") {
            throw context.error(.unsupported, "hierarchical (tree) softmax is not supported", at: option)
        }
        try context.refuse("spatial", because: "per-pixel softmax is not supported")
        let count = context.inputShape.count
        guard groups >= 1, count % groups == 0 else {
            throw context.error(.badInput, "softmax groups must divide the input size", found: "groups=\(groups), inputs=\(count)")
        }
        return BuiltLayer(kind: .softmax(.flattened(groups: groups, temperature: temperature)), inputs: [context.previous])
    }
}
