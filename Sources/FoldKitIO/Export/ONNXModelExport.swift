import FoldKitCore
import FoldKitONNX
import FoldKitRuntime
import Foundation

/// `foldkit export --format onnx`: the folded network as `model.onnx` (`ONNXExporter`) beside
/// `test_data_set_0/` - the seeded (or given) input as `input_0.pb` and FoldKit's float64 reference outputs
/// of the original network as `output_0.pb`, `output_1.pb`, ... in the graph's output order (darknet's own
/// buffer for a head decoded with `decodeHeads`, as `DarknetLayerOutput` computes it) - so the folder
/// is a complete engine test case in the layout of onnx's backend tests and onnxruntime's
/// `onnx_test_runner` (Docs/Export.md).
public enum ONNXModelExport {
    /// What was written.
    public struct Result: Sendable {
        /// The graph's outputs, in order, as FoldKit names them (`NetworkOutputTensor`).
        public var outputs: [NetworkOutputTensor]
        /// Nodes, initializers, bytes and operator counts of the model.
        public var summary: ONNXExporter.Summary
        /// The `metadata_props` written.
        public var metadata: [String: String]
    }

    /// The model file's name in the output folder.
    public static let modelFileName = "model.onnx"

    /// Folds `network` (as read: batch norm unfolded) and writes the model and its test data set to
    /// `destination` (a temporary sibling renamed into place when complete; nothing is left on error).
    /// `input` is the test input (channel-major); `metadata` are extra `metadata_props` (the caller's class
    /// names, say) added to FoldKit's own. `testData` false writes the model alone (no forward pass).
    public static func write(
        network: Network, input: ModelInput, options: ONNXExportOptions, classNames: [String]?, to destination: URL, durable: Bool = false,
        productThreading: ProductThreading = .library, testData: Bool = true
    ) throws -> Result {
        let folded = try FoldBatchNorm.apply(to: network)
        let outputs = NetworkOutputTensor.outputs(of: network, decodedHeads: options.decodeHeads)
        // The source files' digests (a 250 MB .weights file takes a few tenths of a second) are worked out
        // while the weights are written; the metadata that names them goes at the end of the file.
        let files = network.sourceFiles
        let digests = BackgroundWork { try sourceChecksums(files: files) }
        var metadata: [String: String] = [:]
        return try AtomicOutputDirectory.write(to: destination, durable: durable) { folder in
            let summary = try ONNXExporter.write(
                network: folded,
                outputs: outputs.map { ONNXGraphOutput(name: $0.name, layer: $0.layer, shape: $0.shape, darknetBuffer: $0.darknetBuffer) },
                metadata: [:],
                lateMetadata: {
                    metadata = try ONNXMetadata.properties(
                        network: network, outputs: outputs, classNames: classNames, sourceSHA256: try digests.result(), options: options)
                    return metadata
                }, producerVersion: FoldKitVersion.string, options: options, to: try folder.url(for: modelFileName))
            if testData {
                try writeTestData(
                    network: network, input: input, outputs: outputs, layout: options.inputLayout, folder: folder, productThreading: productThreading)
            }
            return Result(outputs: outputs, summary: summary, metadata: metadata)
        }
    }

    /// The SHA-256 of each source file of `network`, by file name.
    static func sourceChecksums(_ network: Network) throws -> [String: String] {
        try sourceChecksums(files: network.sourceFiles)
    }

    /// The SHA-256 of each of `files`, by file name.
    static func sourceChecksums(files: [String]) throws -> [String: String] {
        try Dictionary(
            files.map { (URL(fileURLWithPath: $0).lastPathComponent, try Checksum.sha256Hex(fileAt: $0)) }, uniquingKeysWith: { first, _ in first })
    }

    /// `test_data_set_0/input_0.pb` (the input in the graph's layout) and one `output_<k>.pb` per graph output:
    /// the original network's outputs in float64, rounded once to float32 (as fixture packs hold them). The
    /// ncnn export writes the same (`NCNNModelExport`).
    static func writeTestData(
        network: Network, input: ModelInput, outputs: [NetworkOutputTensor], layout: ONNXInputLayout, folder: AtomicOutputDirectory,
        productThreading: ProductThreading
    ) throws {
        let shape = network.inputShape
        let inputValues = layout == .nchw ? input.values : TensorLayout.chwToHWC(input.values, shape: shape)
        let inputDims = layout == .nchw ? [1, shape.channels, shape.height, shape.width] : [1, shape.height, shape.width, shape.channels]
        try write(values: inputValues, shape: inputDims, name: "input", file: ONNXTensorFile.inputName, folder: folder)
        let wanted = Dictionary(outputs.enumerated().map { ($0.element.layer + 1, $0.offset) }, uniquingKeysWith: { first, _ in first })
        let last = (outputs.map(\.layer).max() ?? -1) + 1
        try FixtureWriter.forEachTensor(network: network, input: input, productThreading: productThreading, through: last) { position, values in
            guard wanted[position] != nil else { return }
            for (k, output) in outputs.enumerated() where output.layer + 1 == position {
                // A decoded head holds darknet's buffer, as the fixture pack's head file does.
                let stored =
                    output.darknetBuffer ? DarknetLayerOutput.transform(network.layers[output.layer], values: values)?.values ?? values : values
                try write(values: stored, shape: output.shape, name: output.name, file: ONNXTensorFile.outputName(k), folder: folder)
            }
        }
    }

    private static func write(values: [Float], shape: [Int], name: String, file: String, folder: AtomicOutputDirectory) throws {
        let raw = values.map { $0.bitPattern.littleEndian }.withUnsafeBufferPointer { Data(buffer: $0) }
        let url = try folder.url(for: file, in: ONNXTensorFile.folder)
        do { try ONNXTensorFile.encode(raw: raw, shape: shape, name: name).write(to: url) } catch let error as FoldKitError { throw error } catch {
            throw FoldKitError(.io, "cannot write test data: \(error.localizedDescription)", file: url.path)
        }
    }
}
