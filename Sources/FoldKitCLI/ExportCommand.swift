import ArgumentParser
import FoldKit
import FoldKitONNX
import Foundation

/// `foldkit export`: the folded network as another engine's model (onnx) with a test data set.
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Fold batch norm and write the network as an onnx model, with a seeded input and FoldKit's reference outputs.",
        discussion: HelpExamples.export)

    @OptionGroup var model: ModelArguments
    @OptionGroup var input: InputArguments
    @OptionGroup var health: WeightHealthArguments

    @Option(help: "Model format: onnx.")
    var format: ExportFormat = .onnx

    @Option(help: "Output folder (written to a temporary sibling, renamed into place when complete).")
    var out: String

    @Option(help: "onnx default-domain opset, 13 to 23 (default 17; Mish is a composition below 18).")
    var opset: Int = ONNXExportOptions.defaultOpset

    @Option(
        help:
            "Weights and compute: float32 (default) or float16 (the model's input and outputs stay float32; a weight past 65504 is an error naming the layer)."
    )
    var dtype: ONNXElementType = .float32

    @Option(help: "Layout of the model's input: nchw (default, [1, C, H, W]) or nhwc ([1, H, W, C], a Transpose first in the graph).")
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
        try OptionRange.check("--opset", opset, atLeast: ONNXExportOptions.minimumOpset)
        if opset > ONNXExportOptions.maximumOpset {
            throw ValidationError("--opset must be at most \(ONNXExportOptions.maximumOpset), not \(opset)")
        }
    }

    func run() throws {
        var preflight = InputPreflight()
        preflight.addModel(model.files)
        preflight.add("--input", input.input)
        try preflight.check()
        let start = Date()
        // One float64 forward pass for the reference outputs: OpenBLAS on one thread, FoldKit spreading products.
        let tuning = ProcessTuning(singleThreadedBLAS: true).apply()
        let (network, given) = try input.load(model)
        try health.refuseUnhealthy(network)
        let classNames = try ClassNames.load(path: names, for: network)
        let console = output.console
        console.note(given)
        let options = ONNXExportOptions(opset: opset, elementType: dtype, inputLayout: inputLayout, decodeHeads: decodeHeads)
        let result = try ONNXModelExport.write(
            network: network, input: given, options: options, classNames: classNames, to: URL(fileURLWithPath: out),
            durable: durability.durable, productThreading: tuning.productThreading, testData: testData)
        let summary = result.summary
        console.say(
            "wrote \(ONNXModelExport.modelFileName) (\(String(format: "%.2f", Double(summary.bytes) / 1_000_000)) MB, opset \(opset), \(dtype.rawValue), input \(inputLayout.rawValue)): \(summary.nodes) nodes, \(summary.initializers) initializers, to \(out)"
        )
        console.say("outputs: " + result.outputs.map { "\($0.name) \($0.shape.map(String.init).joined(separator: "x"))" }.joined(separator: ", "))
        if testData {
            console.say(
                "test_data_set_0: input_0.pb (\(given.origin)) and \(result.outputs.count) reference outputs (original network, float64, stored as float32)"
            )
        }
        console.say(
            "batch norm folded with epsilon \(network.epsilonConvention.epsilon) \(network.epsilonConvention.placement == .insideSqrt ? "inside sqrt(var + eps)" : "outside (sqrt(var) + eps)")"
        )
        let seconds = Date().timeIntervalSince(start)
        console.say(String(format: "took %.2f s", seconds))
        let filesRead = output.json ? try ModelDigests(network.sourceFiles).result() + [given.file].compactMap { $0 } : []
        try console.document(
            JSONDocument(
                command: "export", filesRead: filesRead,
                ExportResult(
                    out: out, format: format.rawValue, model: ONNXModelExport.modelFileName, opset: opset, dtype: dtype.rawValue,
                    inputLayout: inputLayout.rawValue, bytes: summary.bytes, nodes: summary.nodes, operators: summary.operatorCounts,
                    outputs: result.outputs, testData: testData ? "test_data_set_0" : nil, seconds: seconds)))
    }
}

extension ONNXElementType: ExpressibleByArgument {}
extension ONNXInputLayout: ExpressibleByArgument {}
