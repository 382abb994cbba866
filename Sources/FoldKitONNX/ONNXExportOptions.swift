/// What `ONNXExporter` writes: opset, element type, input layout (Docs/Export.md).
public struct ONNXExportOptions: Sendable {
    /// The lowest opset the lowering supports: Softmax, Squeeze, Unsqueeze and Resize as they are from 13.
    public static let minimumOpset = 13
    /// The highest opset written (onnx 1.19's default domain knows up to 24; ONNX Runtime 1.32 runs 23).
    public static let maximumOpset = 23
    /// The default opset.
    public static let defaultOpset = 17

    /// The default-domain opset the model imports (`minimumOpset ... maximumOpset`).
    public var opset: Int
    /// float32, or float16 weights and compute with float32 input and outputs.
    public var elementType: ONNXElementType
    /// The graph input's layout.
    public var inputLayout: ONNXInputLayout
    /// Whether detection heads (and [cost]) output darknet's own buffer, decoded in the graph as darknet's
    /// forward functions leave it (`ONNXGraphBuilder.darknetBuffer`), instead of their raw input.
    public var decodeHeads: Bool

    /// Options for opset `opset` (default 17), `elementType` (default float32) and `inputLayout` (default NCHW).
    public init(
        opset: Int = ONNXExportOptions.defaultOpset, elementType: ONNXElementType = .float32, inputLayout: ONNXInputLayout = .nchw,
        decodeHeads: Bool = false
    ) {
        self.opset = opset
        self.elementType = elementType
        self.inputLayout = inputLayout
        self.decodeHeads = decodeHeads
    }

    /// The IR version that goes with `opset` (onnx/helper.py's VERSION_TABLE): 8 up to opset 18, 9 for
    /// 19 and 20, 10 for 21 and 22, 11 from 23.
    var irVersion: Int64 {
        switch opset {
        case ...18: return 8
        case 19...20: return 9
        case 21...22: return 10
        default: return 11
        }
    }
}
