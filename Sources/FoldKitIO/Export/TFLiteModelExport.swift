import FoldKitCore
import FoldKitRuntime
import FoldKitTFLite
import Foundation

/// `foldkit export --format tflite`: the folded network as a LiteRT model, `model.tflite` (`TFLiteExporter`),
/// whose `metadata` entry "foldkit" holds the facts the onnx model keeps in its metadata_props (input
/// convention, heads and their decoding parameters, class names, outputs, provenance) as one JSON object,
/// and the same `test_data_set_0/` the onnx export writes - the seeded (or given) input as `input_0.pb`
/// (FoldKit's [1, C, H, W]; the model's input is its NHWC transpose) and FoldKit's float64 reference outputs
/// as `output_0.pb`, ... in the order of `foldkit.outputs` - so the folder is a complete engine test case
/// (Docs/Export.md, "LiteRT").
public enum TFLiteModelExport {
    /// What was written.
    public struct Result: Sendable {
        /// The model's outputs, in order, as FoldKit names them (`NetworkOutputTensor`).
        public var outputs: [NetworkOutputTensor]
        /// Operators, tensors, bytes and operator counts of the model.
        public var summary: TFLiteExporter.Summary
        /// The metadata written into the model, each value JSON text.
        public var metadata: [String: String]
    }

    /// The model file's name in the output folder.
    public static let modelFileName = "model.tflite"
    /// The name of the model's metadata entry holding FoldKit's facts.
    public static let metadataName = "foldkit"

    /// Folds `network` (as read: batch norm unfolded) and writes the model and its test data set to
    /// `destination` (a temporary sibling renamed into place when complete; nothing is left on error).
    public static func write(
        network: Network, input: ModelInput, options: TFLiteExportOptions, classNames: [String]?, to destination: URL, durable: Bool = false,
        productThreading: ProductThreading = .library
    ) throws -> Result {
        let folded = try FoldBatchNorm.apply(to: network)
        let outputs = NetworkOutputTensor.outputs(of: network)
        let shape = network.inputShape
        let metadata = try ONNXMetadata.properties(
            network: network, outputs: outputs, classNames: classNames, sourceSHA256: try ONNXModelExport.sourceChecksums(network),
            inputLayout: "nhwc", inputDims: [1, shape.height, shape.width, shape.channels], dtype: options.weightType.rawValue)
        let text = ONNXMetadata.jsonObject(metadata)
        return try AtomicOutputDirectory.write(to: destination, durable: durable) { folder in
            let summary = try TFLiteExporter.write(
                network: folded, outputs: outputs.map { (name: $0.name, layer: $0.layer) }, options: options,
                metadata: [(name: metadataName, bytes: Array(text.utf8))], description: "FoldKit \(FoldKitVersion.string)",
                to: try folder.url(for: modelFileName))
            try ONNXModelExport.writeTestData(
                network: network, input: input, outputs: outputs, layout: .nchw, folder: folder, productThreading: productThreading)
            return Result(outputs: outputs, summary: summary, metadata: metadata)
        }
    }
}
