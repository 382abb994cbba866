import FoldKit

/// The fields `foldkit export --json` adds to its document (Docs/CLI.md, "export").
struct ExportResult: Encodable {
    /// The output folder.
    var out: String
    /// onnx.
    var format: String
    /// The model file, relative to `out`.
    var model: String
    /// The default-domain opset.
    var opset: Int
    /// float32 or float16.
    var dtype: String
    /// nchw or nhwc.
    var inputLayout: String
    /// Bytes of the model file.
    var bytes: Int
    /// Nodes of the graph.
    var nodes: Int
    /// Nodes per operator type.
    var operators: [String: Int]
    /// The graph outputs in order.
    var outputs: [NetworkOutputTensor]
    /// Where the input and FoldKit's reference outputs are, relative to `out` (nil with --no-test-data).
    var testData: String?
    /// Seconds the command took.
    var seconds: Double
}
