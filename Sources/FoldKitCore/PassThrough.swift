/// A layer that passes its input on unchanged (dropout, darknet [cost] and [empty], Keras no-ops): the
/// operation of `LayerKind.identity`, its type name the reason.
public struct PassThrough: Sendable, Hashable {
    /// Why the layer computes nothing at inference ("dropout", "cost", ...).
    public var reason: String

    /// A pass-through for `reason`.
    public init(reason: String) { self.reason = reason }
}

extension PassThrough: LayerOperation {
    public var layerKind: LayerKind { .identity(reason: reason) }

    public func typeName(inputShapes: [ActivationShape]) -> String { reason }

    public func outputShape(for inputs: [ActivationShape]) throws -> ActivationShape { inputs[0] }

    public func describe(into description: inout LayerDescription) { description.passThrough = true }

    public var passesInputThrough: Bool { true }

    public var deviationCarry: DeviationCarry? { .unchanged }

    public var vectorRule: VectorRule { .whenInputsAre }
}
