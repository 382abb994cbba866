/// Element-wise sum of the inputs, then an activation (Darknet [shortcut], Keras Add).
/// The output has the first input's shape. Darknet semantics when shapes differ: each further input
/// is added over the common channels min(C0, Ci); when spatial sizes differ, input i is sampled with
/// stride (Hi/H0) or the output is strided (H0/Hi), as darknet's `shortcut_cpu`.
public struct ElementwiseSum: Sendable, Hashable, Codable {
    /// Applied to the sum.
    public var activation: Activation
    /// A sum followed by `activation`.
    public init(activation: Activation = .linear) { self.activation = activation }
}

extension ElementwiseSum: LayerOperation {
    public var layerKind: LayerKind { .sum(self) }

    public func typeName(inputShapes: [ActivationShape]) -> String { "shortcut" }

    /// The first input's shape (darknet's shortcut keeps the current layer's), of two or more inputs.
    public func outputShape(for inputs: [ActivationShape]) throws -> ActivationShape {
        try require(inputs.count >= 2, "sum needs at least two inputs", found: "\(inputs.count)")
        return inputs[0]
    }

    public func describe(into description: inout LayerDescription) { description.activation = activation.name }

    public var finalActivation: Activation? { activation }

    public func accumulationLength(inputShapes: [ActivationShape], outputShape: ActivationShape) -> Int { inputShapes.count }

    public var deviationCarry: DeviationCarry? { activation.lipschitzBound.map { DeviationCarry(gain: $0, combination: .sum) } }

    public var vectorRule: VectorRule { .whenInputsAre }
}
