/// Reinterprets the input's elements with a new shape: the input is flattened in `order`, and the
/// output is filled in `order` (Keras Flatten/Reshape use `.channelsLast`, Darknet `.channelsFirst`).
public struct Reshape: Sendable, Hashable, Codable {
    /// The output shape.
    public var target: ActivationShape
    /// The element order of flattening and filling.
    public var order: ElementOrder
    /// A reshape to `target` in `order`.
    public init(target: ActivationShape, order: ElementOrder) {
        self.target = target
        self.order = order
    }
}

extension Reshape: LayerOperation {
    public var layerKind: LayerKind { .reshape(self) }

    public func typeName(inputShapes: [ActivationShape]) -> String { "reshape" }

    /// `target`, of the input's element count.
    public func outputShape(for inputs: [ActivationShape]) throws -> ActivationShape {
        let first = inputs[0]
        try require(
            target.count == first.count, "reshape must keep the element count", expected: "\(first.count)", found: "\(target.count) (\(target))")
        return target
    }

    public var passesInputThrough: Bool { true }

    public var deviationCarry: DeviationCarry? { .unchanged }

    public var vectorRule: VectorRule { target.height == 1 && target.width == 1 ? .always : .never }
}
