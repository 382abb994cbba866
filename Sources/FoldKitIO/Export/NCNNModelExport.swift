import FoldKitCore
import FoldKitNCNN
import FoldKitRuntime
import Foundation

/// `foldkit export --format ncnn`: the folded network as ncnn's `model.param` and `model.bin`
/// (`NCNNExporter`), `metadata.json` (the facts the onnx model keeps in its metadata_props: input
/// convention, heads and their decoding parameters, class names, outputs, provenance) and the same
/// `test_data_set_0/` the onnx export writes - the seeded (or given) input as `input_0.pb` and FoldKit's
/// float64 reference outputs as `output_0.pb`, ... in the order of `metadata.json`'s `foldkit.outputs` -
/// so the folder is a complete engine test case (Docs/Export.md, "ncnn").
public enum NCNNModelExport {
    /// What was written.
    public struct Result: Sendable {
        /// The model's output blobs, in order, as FoldKit names them (`NetworkOutputTensor`).
        public var outputs: [NetworkOutputTensor]
        /// Layers, blobs, bytes and layer counts of the model.
        public var summary: NCNNExporter.Summary
        /// The metadata written to metadata.json, each value JSON text.
        public var metadata: [String: String]
    }

    /// The param file's name in the output folder.
    public static let paramFileName = "model.param"
    /// The weights file's name in the output folder.
    public static let binFileName = "model.bin"
    /// The metadata file's name in the output folder.
    public static let metadataFileName = "metadata.json"

    /// Folds `network` (as read: batch norm unfolded) and writes the model, its metadata and its test data
    /// set to `destination` (a temporary sibling renamed into place when complete; nothing is left on error).
    public static func write(
        network: Network, input: ModelInput, options: NCNNExportOptions, classNames: [String]?, to destination: URL, durable: Bool = false,
        productThreading: ProductThreading = .library
    ) throws -> Result {
        let folded = try FoldBatchNorm.apply(to: network)
        let outputs = NetworkOutputTensor.outputs(of: network)
        let shape = network.inputShape
        let metadata = try ONNXMetadata.properties(
            network: network, outputs: outputs, classNames: classNames, sourceSHA256: try ONNXModelExport.sourceChecksums(network),
            inputLayout: "chw", inputDims: [shape.channels, shape.height, shape.width], dtype: options.weightType.rawValue)
        return try AtomicOutputDirectory.write(to: destination, durable: durable) { folder in
            let summary = try NCNNExporter.write(
                network: folded, outputs: outputs.map { (name: $0.name, layer: $0.layer) }, options: options,
                param: try folder.url(for: paramFileName), bin: try folder.url(for: binFileName))
            let text = ONNXMetadata.jsonObject(metadata)
            let url = try folder.url(for: metadataFileName)
            do { try Data(text.utf8).write(to: url) } catch {
                throw FoldKitError(.io, "cannot write the metadata: \(error.localizedDescription)", file: url.path)
            }
            try ONNXModelExport.writeTestData(
                network: network, input: input, outputs: outputs, layout: .nchw, folder: folder, productThreading: productThreading)
            return Result(outputs: outputs, summary: summary, metadata: metadata)
        }
    }
}
