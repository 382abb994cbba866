/// One output of the exported graph: the output of network layer `layer`, named `name`, with the shape the
/// graph gives it (`[1, C, H, W]`, or `[1, C]` for a vector layer of a framework whose vectors are rank 2).
/// The caller chooses names and shapes (FoldKit names them as its fixture packs name the layers, so an
/// engine's outputs can be judged by name: `foldkit verify --engine-outputs`).
public struct ONNXGraphOutput: Sendable, Equatable {
    /// The graph output's name.
    public var name: String
    /// The layer whose output it is (an index into `Network.layers`).
    public var layer: Int
    /// The output's dimensions in the graph; their product is the layer's element count.
    public var shape: [Int]

    /// Layer `layer`'s output as graph output `name` of shape `shape`.
    public init(name: String, layer: Int, shape: [Int]) {
        self.name = name
        self.layer = layer
        self.shape = shape
    }
}
