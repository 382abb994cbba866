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
