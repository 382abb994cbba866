/// One node of the network graph.
public struct Layer: Sendable, Codable {
    /// Position in `Network.layers`. For Darknet this is the section index counted from 0 after [net].
    public var index: Int
    /// The name used in reports, blob names and fixtures: the Darknet index as a string, or the Keras layer name.
    public var name: String
    /// What the layer computes, with its parameters.
    public var kind: LayerKind
    /// Indices of the layers this one reads; `Network.inputIndex` (-1) is the network input.
    public var inputs: [Int]
    /// The shape of its output.
    public var outputShape: ActivationShape
    /// Where it was read from.
    public var source: LayerSource

    /// A layer at position `index` reading `inputs`.
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
