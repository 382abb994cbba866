import ArgumentParser
import FoldKit
import FoldKitONNX
import Foundation

/// `foldkit export`: the folded network as another engine's model (onnx, ncnn, tflite) with a test data set.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract:
            "Fold batch norm and write the network as an onnx, ncnn or LiteRT (tflite) model, with a seeded input and FoldKit's reference outputs.",
        discussion: HelpExamples.export)

    @OptionGroup var model: ModelArguments
    @OptionGroup var input: InputArguments
    @OptionGroup var health: WeightHealthArguments

    @Option(help: "Model format: onnx (model.onnx), ncnn (model.param, model.bin, metadata.json) or tflite (model.tflite, LiteRT).")
    var format: ExportFormat = .onnx

    @Option(help: "Output folder (written to a temporary sibling, renamed into place when complete).")
    var out: String

    @Option(help: "onnx default-domain opset, 13 to 23 (default 17; Mish is a composition below 18). onnx only.")
    var opset: Int?

    @Option(
        help:
            "Weights and compute: float32 (default) or float16 (onnx: the model's input and outputs stay float32; ncnn: the weights ncnn reads with a storage flag are half, with its half tag; tflite: layer weights as float16 constants each read through DEQUANTIZE; a weight past 65504 is an error naming the layer)."
    )
    var dtype: ONNXElementType = .float32

    @Option(
        help:
            "Layout of the model's input: nchw (default, [1, C, H, W]) or nhwc ([1, H, W, C], a Transpose first in the graph). onnx only: ncnn's input is C x H x W, tflite's [1, H, W, C]."
    )
    var inputLayout: ONNXInputLayout = .nchw

    @Option(
        help:
            "Class names for the model's metadata, one a line (default: the .names file beside a Darknet cfg with the cfg's name, else the only .names file there)."
    )
    var names: String?

    @Flag(
        help:
            "Detection heads output darknet's own buffer (logistic, scale_x_y, new_coords, softmax, class tree; [region] as [1, H, W, C]), named layer_NNN as the fixture pack's head file, instead of their raw input layer_NNN_raw."
    )
    var decodeHeads = false

    @Flag(
        inversion: .prefixedNo,
        help:
            "Write test_data_set_0 (the input and FoldKit's float64 reference outputs, one forward pass of the original network); --no-test-data writes the model alone."
    )
    var testData = true

    @OptionGroup var durability: DurabilityArguments
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if let opset {
            try OptionRange.check("--opset", opset, atLeast: ONNXExportOptions.minimumOpset)
            if opset > ONNXExportOptions.maximumOpset {
                throw ValidationError("--opset must be at most \(ONNXExportOptions.maximumOpset), not \(opset)")
            }
        }
        if format == .tflite {
            if opset != nil { throw ValidationError("--opset is for onnx: a LiteRT model has builtin operators, no opset") }
            if inputLayout != .nchw {
                throw ValidationError(
                    "--input-layout \(inputLayout.rawValue) is for onnx: a LiteRT model's input is [1, H, W, C] (test_data_set_0 keeps FoldKit's [1, C, H, W])"
                )
            }
            if decodeHeads {
                throw ValidationError(
                    "--decode-heads is for onnx: a LiteRT model outputs the heads' raw inputs (decode them with its foldkit metadata)")
            }
            if !testData { throw ValidationError("--no-test-data is for onnx: the tflite export always writes test_data_set_0") }
        }
        if format == .ncnn && inputLayout != .nchw {
            throw ValidationError("--input-layout \(inputLayout.rawValue) is for onnx: an ncnn model's input is C x H x W")
        }
        if format == .ncnn && decodeHeads {
            throw ValidationError("--decode-heads is for onnx: an ncnn model outputs the heads' raw inputs (decode them with metadata.json)")
        }
        if format == .ncnn && !testData {
            throw ValidationError("--no-test-data is for onnx: the ncnn export always writes test_data_set_0")
        }
    }

    func run() throws {
        var preflight = InputPreflight()
        preflight.addModel(model.files)
        preflight.add("--input", input.input)
        try preflight.check()
        let start = Date()
        // One float64 forward pass for the reference outputs: OpenBLAS on one thread, FoldKit spreading products.
        // Each initializer is read, folded and serialized into buffers of its own size: freed memory kept for
        // the next one spares the page faults of fresh buffers (yolov4: system time 0.7-0.8 s down to
        // 0.35-0.5 s; Docs/Performance.md).
        let tuning = ProcessTuning(keepsFreedMemory: true, singleThreadedBLAS: true).apply()
        let (network, given) = try input.load(model)
        try health.refuseUnhealthy(network)
        let classNames = try ClassNames.load(path: names, for: network)
        let console = output.console
        console.note(given)
        let destination = URL(fileURLWithPath: out)
        var written: ExportResult
        switch format {
        case .onnx:
            let opset = self.opset ?? ONNXExportOptions.defaultOpset
            let options = ONNXExportOptions(opset: opset, elementType: dtype, inputLayout: inputLayout, decodeHeads: decodeHeads)
            let result = try ONNXModelExport.write(
                network: network, input: given, options: options, classNames: classNames, to: destination, durable: durability.durable,
                productThreading: tuning.productThreading, testData: testData)
            let summary = result.summary
            console.say(
                "wrote \(ONNXModelExport.modelFileName) (\(String(format: "%.2f", Double(summary.bytes) / 1_000_000)) MB, opset \(opset), \(dtype.rawValue), input \(inputLayout.rawValue)): \(summary.nodes) nodes, \(summary.initializers) initializers, to \(out)"
            )
            written = ExportResult(
                out: out, format: format.rawValue, model: ONNXModelExport.modelFileName, weights: nil, opset: opset, dtype: dtype.rawValue,
                inputLayout: inputLayout.rawValue, bytes: summary.bytes, nodes: summary.nodes, operators: summary.operatorCounts,
                outputs: result.outputs, testData: testData ? "test_data_set_0" : nil, seconds: 0)
        case .ncnn:
            let options = NCNNExportOptions(weightType: dtype == .float16 ? .float16 : .float32)
            let result = try NCNNModelExport.write(
                network: network, input: given, options: options, classNames: classNames, to: destination, durable: durability.durable,
                productThreading: tuning.productThreading)
            let summary = result.summary
            console.say(
                "wrote \(NCNNModelExport.paramFileName) (\(summary.layers) layers, \(summary.blobs) blobs) and \(NCNNModelExport.binFileName) (\(String(format: "%.2f", Double(summary.binBytes) / 1_000_000)) MB, \(dtype.rawValue) weights), \(NCNNModelExport.metadataFileName), to \(out)"
            )
            written = ExportResult(
                out: out, format: format.rawValue, model: NCNNModelExport.paramFileName, weights: NCNNModelExport.binFileName, opset: nil,
                dtype: dtype.rawValue, inputLayout: "chw", bytes: summary.paramBytes + summary.binBytes, nodes: summary.layers,
                operators: summary.layerCounts, outputs: result.outputs, testData: "test_data_set_0", seconds: 0)
        case .tflite:
            let options = TFLiteExportOptions(weightType: dtype == .float16 ? .float16 : .float32)
            let result = try TFLiteModelExport.write(
                network: network, input: given, options: options, classNames: classNames, to: destination, durable: durability.durable,
                productThreading: tuning.productThreading)
            let summary = result.summary
            console.say(
                "wrote \(TFLiteModelExport.modelFileName) (\(String(format: "%.2f", Double(summary.bytes) / 1_000_000)) MB, \(dtype.rawValue) weights, input [1, H, W, C]): \(summary.operators) operators, \(summary.tensors) tensors, to \(out)"
            )
            written = ExportResult(
                out: out, format: format.rawValue, model: TFLiteModelExport.modelFileName, weights: nil, opset: nil, dtype: dtype.rawValue,
                inputLayout: "nhwc", bytes: summary.bytes, nodes: summary.operators, operators: summary.operatorCounts, outputs: result.outputs,
                testData: "test_data_set_0", seconds: 0)
        }
        console.say("outputs: " + written.outputs.map { "\($0.name) \($0.shape.map(String.init).joined(separator: "x"))" }.joined(separator: ", "))
        if testData {
            console.say(
                "test_data_set_0: input_0.pb (\(given.origin)) and \(written.outputs.count) reference outputs (original network, float64, stored as float32)"
            )
        }
        console.say(
            "batch norm folded with epsilon \(network.epsilonConvention.epsilon) \(network.epsilonConvention.placement == .insideSqrt ? "inside sqrt(var + eps)" : "outside (sqrt(var) + eps)")"
        )
        let seconds = Date().timeIntervalSince(start)
        console.say(String(format: "took %.2f s", seconds))
        let filesRead = output.json ? try ModelDigests(network.sourceFiles).result() + [given.file].compactMap { $0 } : []
        written.seconds = seconds
        try console.document(JSONDocument(command: "export", filesRead: filesRead, written))
    }
}

extension ONNXElementType: ExpressibleByArgument {}
extension ONNXInputLayout: ExpressibleByArgument {}
