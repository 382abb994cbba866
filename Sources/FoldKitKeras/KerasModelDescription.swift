import FoldKitCore
import Foundation

/// The model parsed from `model_config` / `config.json`, independent of Keras version and flattened:
/// Sequential (Keras 1 list form, dict form with "layers"), Model / Functional with any DAG (inbound
/// nodes in the Keras 1/2 list form and the Keras 3 dict form with "args"/keras_history), with models
/// used as layers and shared layers expanded by `KerasGraphFlattener`.
struct KerasModelDescription {
    var className: String
    /// Every layer call, nested models expanded, in an order where each call comes after what it reads.
    var layers: [KerasLayerDescription]
    /// Name standing for the model input (an InputLayer's name, or `KerasModelGraph.inputPlaceholder`).
    var inputName: String
    var outputNames: [String]
    /// batch_input_shape / batch_shape without the batch axis (nil entries are undefined sizes).
    var inputShape: [Int?]
    var isSequential: Bool
    /// keras_version / backend written inside the JSON, if any.
    var kerasVersion: String?
    var backend: String?

    static func parse(_ json: KerasJSON, file: String) throws -> KerasModelDescription {
        guard let className = json["class_name"]?.string else {
            throw FoldKitError(.badInput, "model description has no class_name", file: file)
        }
        guard let config = json["config"] else {
            throw FoldKitError(.badInput, "model description has no config", file: file)
        }
        let name = config["name"]?.string ?? "model"
        let graph = try KerasModelGraph.parse(className: className, config: config, name: name, file: file, path: "")
        guard graph.inputs.count == 1, let input = graph.inputs.first else {
            throw FoldKitError(
                .unsupported, "only models with exactly one input are supported", file: file,
                found: "\(graph.inputs.count) inputs: \(graph.inputs.map(\.name))")
        }
        guard let shape = input.shape else {
            throw FoldKitError(
                .badInput, "Sequential model has no input shape (batch_input_shape / batch_shape / build_input_shape)", file: file)
        }
        var flattener = KerasGraphFlattener(file: file)
        let outputs = try flattener.expand(graph, prefix: "", weightPrefix: [], archivePrefix: "layers", bindings: [input.name])
        return KerasModelDescription(
            className: graph.className, layers: flattener.layers, inputName: input.name, outputNames: outputs, inputShape: shape,
            isSequential: graph.isSequential, kerasVersion: json["keras_version"]?.string, backend: json["backend"]?.string)
    }
}
