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
    /// Whether the output is darknet's own buffer for the layer (a detection head decoded as darknet's
    /// forward function leaves it, [cost] zeros; `ONNXGraphBuilder.darknetBuffer`) rather than FoldKit's
    /// output (a head's raw input).
    public var darknetBuffer: Bool

    /// Layer `layer`'s output (or, with `darknetBuffer`, darknet's buffer for it) as graph output `name` of
    /// shape `shape`.
    public init(name: String, layer: Int, shape: [Int], darknetBuffer: Bool = false) {
        self.name = name
        self.layer = layer
        self.shape = shape
        self.darknetBuffer = darknetBuffer
    }
}
