/// The element type of the exported graph's activations and weights, with onnx's `TensorProto.DataType`
/// codes (onnx/onnx.proto): FLOAT = 1, FLOAT16 = 10, INT64 = 7.
public enum ONNXElementType: String, Sendable, CaseIterable {
    /// IEEE 754 binary32: weights and compute in float32.
    case float32
    /// IEEE 754 binary16: weights stored and computed in half precision; the graph's input and outputs stay
    /// float32 (a Cast at each end).
    case float16

    /// onnx's `TensorProto.DataType` code.
    public var dataType: Int32 {
        switch self {
        case .float32: return ONNXElementType.floatCode
        case .float16: return ONNXElementType.float16Code
        }
    }

    /// Bytes per element.
    public var byteCount: Int { self == .float32 ? 4 : 2 }

    /// `TensorProto.DataType.FLOAT`.
    static let floatCode: Int32 = 1
    /// `TensorProto.DataType.FLOAT16`.
    static let float16Code: Int32 = 10
    /// `TensorProto.DataType.INT64`.
    static let int64Code: Int32 = 7
    /// `TensorProto.DataType.BOOL`.
    static let boolCode: Int32 = 9
}
