/// Zero rows and columns added around every channel (Keras ZeroPadding2D): the operation of
/// `LayerKind.zeroPad`.
public struct ZeroPadding: Sendable, Hashable {
    /// Rows and columns added at each edge.
    public var edges: Padding2D

    /// Padding by `edges`.
    public init(edges: Padding2D) { self.edges = edges }
}

extension ZeroPadding: LayerOperation {
    public var layerKind: LayerKind { .zeroPad(edges) }

    public func typeName(inputShapes: [ActivationShape]) -> String { "zeropad" }

    public func outputShape(for inputs: [ActivationShape]) throws -> ActivationShape {
        let first = inputs[0]
        return ActivationShape(
            channels: first.channels, height: first.height + edges.top + edges.bottom, width: first.width + edges.left + edges.right)
    }

    public var deviationCarry: DeviationCarry? { .unchanged }
}
