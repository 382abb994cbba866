/// The single description of a network that every stage after the readers works on.
///
/// Activations are channel-major (C x H x W, batch 1). `layers` is in execution order: every layer's
/// inputs come before it. The network input is referred to as `Network.inputIndex`.
///
/// Codable, with every type it holds: the `foldkit` command's HDF5 helper process hands the network it
/// read to the command as JSON (`LoadedModelTransfer`, its tensors as spans of the values that follow).
public struct Network: Sendable, Codable {
    /// The model format read.
    public enum SourceFormat: String, Sendable, Codable { case darknet, keras }

    /// The index that stands for the network input in `Layer.inputs`.
    public static let inputIndex = -1

    /// Darknet or Keras.
    public var format: SourceFormat
    /// The files the network was read from (description first, then weights).
    public var sourceFiles: [String]
    /// The input's C x H x W.
    public var inputShape: ActivationShape
    /// How a user-supplied input tensor is laid out in the model's own convention
    /// (Darknet `.channelsFirst`, Keras `.channelsLast`).
    public var inputOrder: ElementOrder
    /// Every layer in execution order.
    public var layers: [Layer]
    /// Indices of the layers whose outputs are the network outputs (the last layer if empty).
    public var outputs: [Int]
    /// The batch-norm epsilon convention the reader applied (after any user override).
    public var epsilonConvention: EpsilonConvention
    /// What the reader learned beyond the layers (darknet's letter_box and header, Keras's version, backend).
    public var metadata: NetworkMetadata
    /// How the model's framework refers to its layers, set by the reader: `.index` (Darknet: [route] and
    /// [shortcut] name positions, so indices are the layers' identity and no layer may be removed; blobs are
    /// named `conv<i>`, fixtures identified by index) or `.name` (Keras: each layer's own name).
    public var layerIdentity: LayerIdentity
    /// Whether a (batch, features) tensor has rank 2 in the framework (Keras: Dense and Flatten outputs, a
    /// vector input), set by the reader; otherwise it is (1, C, 1, 1) (Darknet).
    public var vectorsAreRank2: Bool
    /// Whether the parameters are zero-filled placeholders (a .cfg read without its .weights, for shapes
    /// only), set by the reader.
    public var parametersArePlaceholders: Bool

    /// A network of `layers` (in execution order) over an input of `inputShape`.
    public init(
        format: SourceFormat, sourceFiles: [String], inputShape: ActivationShape, inputOrder: ElementOrder,
        layers: [Layer], outputs: [Int], epsilonConvention: EpsilonConvention, metadata: NetworkMetadata = NetworkMetadata(),
        layerIdentity: LayerIdentity = .index, vectorsAreRank2: Bool = false, parametersArePlaceholders: Bool = false
    ) {
        self.format = format
        self.sourceFiles = sourceFiles
        self.inputShape = inputShape
        self.inputOrder = inputOrder
        self.layers = layers
        self.outputs = outputs
        self.epsilonConvention = epsilonConvention
        self.metadata = metadata
        self.layerIdentity = layerIdentity
        self.vectorsAreRank2 = vectorsAreRank2
        self.parametersArePlaceholders = parametersArePlaceholders
    }

    /// The layers whose outputs are the network's outputs.
    public var outputIndices: [Int] { outputs.isEmpty ? [layers.count - 1] : outputs }

    /// Shape of the tensor produced by `index` (the network input for `inputIndex`).
    public func shape(of index: Int) -> ActivationShape {
        index == Network.inputIndex ? inputShape : layers[index].outputShape
    }

    /// The type name of `layer` in this network (`LayerKind.typeName(inputShapes:)`, which tells channel
    /// windows apart by their input): what inspect, manifests, fixtures and reports show.
    package func typeName(of layer: Layer) -> String {
        layer.kind.typeName(inputShapes: layer.inputs.map(shape(of:)))
    }

    /// Total number of parameter values over all layers.
    public var parameterCount: Int {
        layers.reduce(0) { sum, layer in sum + layer.kind.parameters.reduce(0) { $0 + $1.tensor.count } }
    }

    /// A copy with every file-backed tensor read into memory (for running the network several times).
    public func materialized() throws -> Network {
        var copy = self
        for i in copy.layers.indices {
            copy.layers[i].kind = try copy.layers[i].kind.materialized()
        }
        return copy
    }

    /// A copy where every batch norm uses `convention` (the `--bn-epsilon` / `--bn-epsilon-mode` override).
    package func withEpsilonConvention(_ convention: EpsilonConvention) -> Network {
        var copy = self
        copy.epsilonConvention = convention
        for i in copy.layers.indices {
            switch copy.layers[i].kind {
            case .convolution(var c):
                c.batchNorm?.convention = convention
                copy.layers[i].kind = .convolution(c)
            case .fullyConnected(var f):
                f.batchNorm?.convention = convention
                copy.layers[i].kind = .fullyConnected(f)
            case .batchNorm(var bn):
                bn.convention = convention
                copy.layers[i].kind = .batchNorm(bn)
            default: break
            }
        }
        return copy
    }
}

extension LayerKind {
    /// The same kind with all parameter tensors held in memory.
    public func materialized() throws -> LayerKind {
        try operation.mappingParameters { _, tensor in try tensor.materialized() }
    }
}
