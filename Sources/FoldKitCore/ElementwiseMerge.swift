/// An element-wise merge of two or more inputs with one `MergeOperation` (Keras Add, Subtract, Multiply,
/// Average, Maximum, Minimum; TensorFlow's add, subtract, multiply, divide, maximum, minimum).
///
/// The inputs have one full shape C x H x W, except that an input may be broadcast:
/// - an input of shape C x 1 x 1 (the same C) stands for in[c, y, x] = in[c] at every (y, x);
/// - an input of shape 1 x 1 x 1 stands for its one value everywhere.
///
/// The output has the full shape, and element i is the operation applied left to right in input order to
/// element i of every input (broadcast as above):
///
///     out[c, y, x] = op(...op(op(in_0[c, y, x], in_1[c, y, x]), in_2[c, y, x])..., in_{n-1}[c, y, x])
///
/// with op as `MergeOperation` documents it (average: the sum, divided by n at the end). Subtract and
/// divide take exactly two inputs (out = a - b, a / b); the others two or more. Shape inference refuses
/// every other combination of shapes.
public struct ElementwiseMerge: Sendable, Hashable, Codable {
    /// The operation applied.
    public var operation: MergeOperation
    /// A merge with `operation`.
    public init(_ operation: MergeOperation) {
        self.operation = operation
    }
}

extension ElementwiseMerge: LayerOperation {
    public var layerKind: LayerKind { .merge(self) }

    public func typeName(inputShapes: [ActivationShape]) -> String { operation.rawValue }

    /// The full shape of its inputs, each of which is that shape, C x 1 x 1 with the same C, or 1 x 1 x 1;
    /// subtract and divide take exactly two inputs, the others two or more.
    public func outputShape(for inputs: [ActivationShape]) throws -> ActivationShape {
        switch operation {
        case .subtract, .divide:
            guard inputs.count == 2 else {
                throw FoldKitError(.badInput, "\(operation.rawValue) needs exactly two inputs", expected: "2", found: "\(inputs.count)")
            }
        case .add, .multiply, .average, .maximum, .minimum:
            guard inputs.count >= 2 else {
                throw FoldKitError(.badInput, "\(operation.rawValue) needs at least two inputs", expected: "2 or more", found: "\(inputs.count)")
            }
        }
        // The full shape is the largest input; every input must be it or broadcast onto it.
        let full = inputs.max { $0.count < $1.count } ?? inputs[0]
        for shape in inputs where shape != full {
            let perChannel = shape.height == 1 && shape.width == 1 && shape.channels == full.channels
            let single = shape.channels == 1 && shape.height == 1 && shape.width == 1
            guard perChannel || single else {
                throw FoldKitError(
                    .badInput, "\(operation.rawValue) inputs cannot be broadcast to one shape",
                    expected: "\(full), \(full.channels)x1x1 or 1x1x1 for every input", found: inputs.map(\.description).joined(separator: ", "))
            }
        }
        return full
    }

    public func accumulationLength(inputShapes: [ActivationShape], outputShape: ActivationShape) -> Int {
        switch operation {
        case .add, .subtract, .average: return inputShapes.count
        case .multiply, .divide, .maximum, .minimum: return 1
        }
    }

    public var deviationCarry: DeviationCarry? {
        switch operation {
        case .add, .subtract: return DeviationCarry(gain: 1, combination: .sum)
        case .average, .maximum, .minimum: return .unchanged
        case .multiply, .divide: return nil
        }
    }

    public var vectorRule: VectorRule { .whenInputsAre }
}
