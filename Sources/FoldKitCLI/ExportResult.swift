import FoldKit

/// The fields `foldkit export --json` adds to its document (Docs/CLI.md, "export").
struct ExportResult: Encodable {
    /// The output folder.
    var out: String
    /// onnx, ncnn or tflite.
    var format: String
    /// The model file, relative to `out` (model.onnx, ncnn's model.param).
    var model: String
    /// ncnn's model.bin, relative to `out`; nil for onnx.
    var weights: String?
    /// The default-domain opset; nil for ncnn and tflite.
    var opset: Int?
    /// float32 or float16.
    var dtype: String
    /// nchw or nhwc (onnx), chw (ncnn), nhwc (tflite).
    var inputLayout: String
    /// Bytes of the model files.
    var bytes: Int
    /// Nodes of the graph (ncnn: layer lines; tflite: operators).
    var nodes: Int
    /// Nodes per operator type (ncnn: layers per layer type).
    var operators: [String: Int]
    /// The graph outputs in order.
    var outputs: [NetworkOutputTensor]
    /// Where the input and FoldKit's reference outputs are, relative to `out` (nil with --no-test-data).
    var testData: String?
    /// Seconds the command took.
    var seconds: Double

    private enum CodingKeys: String, CodingKey {
        case out, format, model, weights, opset, dtype, inputLayout, bytes, nodes, operators, outputs, testData, seconds
    }

    /// Every field, null when it does not apply (onnx has no `weights`, ncnn no `opset`): each document has
    /// the same top-level keys (Docs/CLI.md "JSON documents").
    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(out, forKey: .out)
        try container.encode(format, forKey: .format)
        try container.encode(model, forKey: .model)
        try container.encode(weights, forKey: .weights)
        try container.encode(opset, forKey: .opset)
        try container.encode(dtype, forKey: .dtype)
        try container.encode(inputLayout, forKey: .inputLayout)
        try container.encode(bytes, forKey: .bytes)
        try container.encode(nodes, forKey: .nodes)
        try container.encode(operators, forKey: .operators)
        try container.encode(outputs, forKey: .outputs)
        try container.encode(testData, forKey: .testData)
        try container.encode(seconds, forKey: .seconds)
    }
}
