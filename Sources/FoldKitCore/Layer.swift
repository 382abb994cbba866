/// Where a layer came from, for error messages and `foldkit inspect`.
public struct LayerSource: Sendable, Hashable {
    /// The description file (.cfg, .h5, .json, .keras).
    public var file: String
    /// `[convolutional]` for Darknet, the Keras class name (`Conv2D`) for Keras.
    public var section: String
    /// 1-based line of the section header in a .cfg.
    public var line: Int?
    /// Bytes of the weights file this layer's parameters occupy (Darknet).
    public var weightsByteRange: Range<Int>?

    public init(file: String, section: String, line: Int? = nil, weightsByteRange: Range<Int>? = nil) {
        self.file = file
        self.section = section
        self.line = line
        self.weightsByteRange = weightsByteRange
    }
}

/// One node of the network graph.
public struct Layer: Sendable {
    /// Position in `Network.layers`. For Darknet this is the section index counted from 0 after [net].
    public var index: Int
    /// The name used in reports, blob names and fixtures: the Darknet index as a string, or the Keras layer name.
    public var name: String
    public var kind: LayerKind
    /// Indices of the layers this one reads; `Network.inputIndex` (-1) is the network input.
    public var inputs: [Int]
    public var outputShape: ActivationShape
    public var source: LayerSource

    public init(index: Int, name: String, kind: LayerKind, inputs: [Int], outputShape: ActivationShape, source: LayerSource) {
        self.index = index
        self.name = name
        self.kind = kind
        self.inputs = inputs
        self.outputShape = outputShape
        self.source = source
    }

    /// `layer 3 [convolutional]` or `conv2d_1 (Conv2D)`, as errors and reports print it.
    public var label: String {
        if name == String(index) { return "layer \(index) \(source.section)" }
        return "layer \(index) '\(name)' (\(source.section))"
    }
}
