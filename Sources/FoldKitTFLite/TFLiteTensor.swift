/// A tensor of the LiteRT graph (`Tensor` in Fixtures/litert/schema.fbs): its name, shape, element type and
/// buffer (0: none, an activation; else the index of its constant in `Model.buffers`).
struct TFLiteTensor: Sendable {
    /// `TensorType` values FoldKit writes.
    enum ElementType: Int8, Sendable {
        case float32 = 0
        case float16 = 1
        case int32 = 2
        case bool = 6
    }

    var name: String
    var shape: [Int]
    var type: ElementType
    var buffer: Int
}

/// A constant's bytes, produced when the model file is written (so the weights stream to disk one tensor
/// at a time): `byteCount` bytes, little-endian.
struct TFLiteConstant: Sendable {
    var byteCount: Int
    var produce: @Sendable () throws -> [UInt8]
}

/// An operator of the graph: the builtin, its input and output tensor indices (-1: an optional input left
/// out) and its options.
struct TFLiteOperation: Sendable {
    var op: TFLiteOperator
    var inputs: [Int]
    var outputs: [Int]
    var options: TFLiteOptions?
}
