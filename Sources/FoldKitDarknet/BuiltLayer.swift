import FoldKitCore

/// What a section builder produces: the operation and the layers it reads.
struct BuiltLayer {
    var kind: LayerKind
    var inputs: [Int]
    /// Files the section read besides the cfg and the weights ([region] `tree=`): sources of the network.
    var sourceFiles: [String] = []
}
