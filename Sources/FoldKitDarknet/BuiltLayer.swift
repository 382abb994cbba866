import FoldKitCore

/// What a section builder produces: the operation and the layers it reads.
struct BuiltLayer {
    var kind: LayerKind
    var inputs: [Int]
}
