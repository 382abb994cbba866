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
public struct ElementwiseMerge: Sendable, Hashable {
    /// The operation applied.
    public var operation: MergeOperation
    /// A merge with `operation`.
    public init(_ operation: MergeOperation) {
        self.operation = operation
    }
}
