import ArgumentParser

/// The model formats `foldkit export` writes (Docs/Export.md).
enum ExportFormat: String, ExpressibleByArgument, CaseIterable {
    /// An onnx model (`model.onnx`) with its test data set.
    case onnx
    /// An ncnn model (`model.param`, `model.bin`) with metadata.json and the same test data set.
    case ncnn
    /// A LiteRT (TensorFlow Lite) model (`model.tflite`, FoldKit's facts in its metadata) with the same test data set.
    case tflite
}
