/// Rows and columns removed at the edges, then out = in * scale + shift (Keras Cropping2D; darknet [crop]
/// at inference, scale 2 and shift -1 unless noadjust=1): the operation of `LayerKind.crop`.
public struct Crop: Sendable, Hashable {
    /// Rows and columns removed at each edge.
    public var edges: Padding2D
    /// The factor on the kept values.
    public var scale: Float
    /// The offset added after the factor.
    public var shift: Float

    /// Cropping by `edges`, then `scale` and `shift`.
    public init(edges: Padding2D, scale: Float, shift: Float) {
        self.edges = edges
        self.scale = scale
        self.shift = shift
    }
}

extension Crop: LayerOperation {
    public var layerKind: LayerKind { .crop(edges, scale: scale, shift: shift) }

    public func typeName(inputShapes: [ActivationShape]) -> String { "crop" }

    public func outputShape(for inputs: [ActivationShape]) throws -> ActivationShape {
        let first = inputs[0]
        return ActivationShape(
            channels: first.channels, height: first.height - edges.top - edges.bottom, width: first.width - edges.left - edges.right)
    }

    public var deviationCarry: DeviationCarry? { DeviationCarry.largest(abs(Double(scale))) }
}
