/// The product of two inputs (darknet [scale_channels] and [sam], Keras Multiply of two): the operation of
/// `LayerKind.product`. Equal shapes multiply element by element; an input of shape C x 1 x 1 scales every
/// channel of the other.
public struct ElementwiseProduct: Sendable, Hashable {
    /// The product.
    public init() {}
}

extension ElementwiseProduct: LayerOperation {
    public var layerKind: LayerKind { .product }

    public func typeName(inputShapes: [ActivationShape]) -> String { "multiply" }

    /// The larger input's shape; the other is equal or C x 1 x 1.
    public func outputShape(for inputs: [ActivationShape]) throws -> ActivationShape {
        try require(inputs.count == 2, "product needs two inputs", found: "\(inputs.count)")
        let (a, b) = (inputs[0], inputs[1])
        if a == b || (b.height == 1 && b.width == 1 && b.channels == a.channels) { return a }
        if a.height == 1 && a.width == 1 && a.channels == b.channels { return b }
        throw FoldKitError(.badInput, "product inputs cannot be broadcast", expected: "equal shapes or C x 1 x 1", found: "\(a) and \(b)")
    }

    public var vectorRule: VectorRule { .whenInputsAre }
}
