import FoldKitCore
import Foundation

/// A weight or constant of the exported graph, named in the graph now and read when the model file is
/// written (`ONNXModelFile`), so a network's weights are never all in memory at once.
struct ONNXInitializer {
    /// What the initializer holds.
    enum Payload {
        /// Floating-point values, read on demand, stored in the initializer's `dataType` (FLOAT or FLOAT16).
        case floats(() throws -> [Float])
        /// Integer values (shapes, axes, pads), stored as INT64.
        case int64s([Int64])
    }

    /// The graph name.
    var name: String
    /// Dimensions (empty for a scalar).
    var dims: [Int]
    /// onnx `TensorProto.DataType`: FLOAT, FLOAT16 or INT64.
    var dataType: Int32
    /// The layer it belongs to, as errors name it (float16 overflow), or nil for a graph-level constant.
    var layer: String?
    /// The model file it belongs to, as errors name it.
    var file: String?
    /// The values.
    var payload: Payload

    /// Element count: the product of `dims` (1 for a scalar).
    var count: Int { dims.reduce(1, *) }
}
