import FoldKitCore
import Foundation

/// The model graph parsed from `model_config` / `config.json`, independent of Keras version:
/// Sequential (Keras 1 list form, dict form with "layers"), Model / Functional with any DAG
/// (inbound_nodes in the Keras 1/2 list form and the Keras 3 dict form with "args"/keras_history).
struct KerasModelDescription {
    var className: String
    var layers: [KerasLayerDescription]
    /// Name standing for the model input (an InputLayer's name, or `inputPlaceholder`).
    var inputName: String
    var outputNames: [String]
    /// batch_input_shape / batch_shape without the batch axis (nil entries are undefined sizes).
    var inputShape: [Int?]
    var isSequential: Bool
    /// keras_version / backend written inside the JSON, if any.
    var kerasVersion: String?
    var backend: String?

    static let inputPlaceholder = "__input__"

    static func parse(_ json: KerasJSON, file: String) throws -> KerasModelDescription {
        guard let className = json["class_name"]?.string else {
            throw FoldKitError(.badInput, "model description has no class_name", file: file)
        }
        let version = json["keras_version"]?.string
        let backend = json["backend"]?.string
        guard let config = json["config"] else {
            throw FoldKitError(.badInput, "model description has no config", file: file)
        }
        switch className {
        case "Sequential":
            var model = try parseSequential(config, file: file)
            model.kerasVersion = version
            model.backend = backend
            return model
        case "Model", "Functional":
            var model = try parseFunctional(config, className: className, file: file)
            model.kerasVersion = version
            model.backend = backend
            return model
        default:
            throw FoldKitError(
                .unsupported, "model class '\(className)' is not supported", file: file,
                expected: "Sequential, Model or Functional", found: className)
        }
    }

    private static func layerEntry(_ entry: KerasJSON, index: Int, file: String) throws -> (
        name: String, className: String, module: String?, config: KerasJSON
    ) {
        guard let className = entry["class_name"]?.string, let config = entry["config"] else {
            throw FoldKitError(.badInput, "layer entry \(index) has no class_name/config", file: file)
        }
        guard let name = config["name"]?.string ?? entry["name"]?.string else {
            throw FoldKitError(.badInput, "layer entry \(index) (\(className)) has no name", file: file)
        }
        return (name, className, entry["module"]?.string, config)
    }

    private static func parseSequential(_ config: KerasJSON, file: String) throws -> KerasModelDescription {
        let entries: [KerasJSON]
        var buildShape: KerasJSON?
        if let list = config.array {
            entries = list
        } else if let list = config["layers"]?.array {
            entries = list
            buildShape = config["build_input_shape"]
        } else {
            throw FoldKitError(.badInput, "Sequential config has no layer list", file: file)
        }
        var layers: [KerasLayerDescription] = []
        var inputName = inputPlaceholder
        var inputShape: [Int?]?
        var previous: String?
        for (index, entry) in entries.enumerated() {
            let (name, className, module, layerConfig) = try layerEntry(entry, index: index, file: file)
            if className == "InputLayer" {
                guard previous == nil else {
                    throw FoldKitError(.badInput, "InputLayer in the middle of a Sequential model", file: file, layer: "\(name) (InputLayer)")
                }
                inputName = name
                inputShape = try shapeFromConfig(layerConfig, file: file, layer: name)
                previous = name
                continue
            }
            if inputShape == nil {
                inputShape = try shapeFromConfig(layerConfig, file: file, layer: name)
            }
            layers.append(
                KerasLayerDescription(
                    name: name, className: className, module: module, config: layerConfig,
                    inboundLayers: [previous ?? inputName]))
            previous = name
        }
        if inputShape == nil, let buildShape, let dims = buildShape.array {
            inputShape = Array(dims.dropFirst().map { $0.int })
        }
        guard let shape = inputShape, let last = previous else {
            throw FoldKitError(
                .badInput, "Sequential model has no input shape (batch_input_shape / batch_shape / build_input_shape) or no layers", file: file)
        }
        return KerasModelDescription(
            className: "Sequential", layers: layers, inputName: inputName, outputNames: [last],
            inputShape: shape, isSequential: true, kerasVersion: nil, backend: nil)
    }

    /// batch_input_shape (Keras 1/2), batch_shape (Keras 3) or input_dim (Keras 1 Dense), without the batch axis.
    private static func shapeFromConfig(_ config: KerasJSON, file: String, layer: String) throws -> [Int?]? {
        if let dims = (config["batch_input_shape"] ?? config["batch_shape"])?.array {
            return Array(dims.dropFirst().map { $0.int })
        }
        if let dims = config["input_shape"]?.array { return dims.map { $0.int } }
        if let n = config["input_dim"]?.int { return [n] }
        return nil
    }

    private static func parseFunctional(_ config: KerasJSON, className: String, file: String) throws -> KerasModelDescription {
        guard let entries = config["layers"]?.array else {
            throw FoldKitError(.badInput, "\(className) config has no layers", file: file)
        }
        var layers: [KerasLayerDescription] = []
        var inputs: [(name: String, shape: [Int?])] = []
        for (index, entry) in entries.enumerated() {
            let (name, layerClass, module, layerConfig) = try layerEntry(entry, index: index, file: file)
            let label = "\(name) (\(layerClass))"
            let nodes = entry["inbound_nodes"]?.array ?? []
            if layerClass == "InputLayer" {
                let shape = try shapeFromConfig(layerConfig, file: file, layer: name) ?? []
                inputs.append((name, shape))
                continue
            }
            guard nodes.count == 1, let node = nodes.first else {
                if nodes.isEmpty {
                    throw FoldKitError(.badInput, "layer has no inbound node", file: file, layer: label)
                }
                throw FoldKitError(.unsupported, "shared layers (called on \(nodes.count) inputs) are not supported", file: file, layer: label)
            }
            let history = try inboundHistory(node, file: file, layer: label)
            for reference in history where reference.node != 0 || reference.tensor != 0 {
                throw FoldKitError(
                    .unsupported,
                    "input refers to node \(reference.node) tensor \(reference.tensor) of '\(reference.layer)' (shared layers or multi-output layers are not supported)",
                    file: file, layer: label)
            }
            layers.append(
                KerasLayerDescription(
                    name: name, className: layerClass, module: module, config: layerConfig,
                    inboundLayers: history.map { $0.layer }))
        }
        let inputRefs = try endpointNames(config["input_layers"], what: "input_layers", file: file)
        let outputRefs = try endpointNames(config["output_layers"], what: "output_layers", file: file)
        guard inputRefs.count == 1, let inputName = inputRefs.first else {
            throw FoldKitError(
                .unsupported, "only models with exactly one input are supported", file: file, found: "\(inputRefs.count) inputs: \(inputRefs)")
        }
        guard let input = inputs.first(where: { $0.name == inputName }) else {
            throw FoldKitError(.badInput, "model input '\(inputName)' is not an InputLayer", file: file)
        }
        guard !outputRefs.isEmpty else { throw FoldKitError(.badInput, "model has no outputs", file: file) }
        return KerasModelDescription(
            className: className, layers: layers, inputName: inputName, outputNames: outputRefs,
            inputShape: input.shape, isSequential: false, kerasVersion: nil, backend: nil)
    }

    private struct TensorReference { var layer: String; var node: Int; var tensor: Int }

    /// The tensors one inbound node reads. Keras 1/2: `[[name, node, tensor, {kwargs}], ...]`.
    /// Keras 3: `{"args": [...], "kwargs": {...}}` holding `__keras_tensor__` entries with keras_history.
    private static func inboundHistory(_ node: KerasJSON, file: String, layer: String) throws -> [TensorReference] {
        if let args = node["args"] {
            var found: [TensorReference] = []
            collectKerasTensors(args, into: &found)
            if found.isEmpty { throw FoldKitError(.badInput, "inbound node has no keras tensors", file: file, layer: layer) }
            return found
        }
        guard let list = node.array else { throw FoldKitError(.badInput, "inbound node is neither a list nor a dict", file: file, layer: layer) }
        return try list.map { item in
            guard let parts = item.array, let name = parts.first?.string else {
                throw FoldKitError(.badInput, "inbound node entry is not [layer, node, tensor]", file: file, layer: layer)
            }
            return TensorReference(layer: name, node: parts.count > 1 ? parts[1].int ?? 0 : 0, tensor: parts.count > 2 ? parts[2].int ?? 0 : 0)
        }
    }

    private static func collectKerasTensors(_ value: KerasJSON, into found: inout [TensorReference]) {
        switch value {
        case .array(let items):
            for item in items { collectKerasTensors(item, into: &found) }
        case .object:
            if value["class_name"]?.string == "__keras_tensor__", let history = value["config"]?["keras_history"]?.array,
                let name = history.first?.string
            {
                found.append(
                    TensorReference(
                        layer: name, node: history.count > 1 ? history[1].int ?? 0 : 0,
                        tensor: history.count > 2 ? history[2].int ?? 0 : 0))
            }
        default: break
        }
    }

    /// input_layers / output_layers: `[[name, 0, 0], ...]` or a single `[name, 0, 0]` (Keras 3, one endpoint).
    private static func endpointNames(_ value: KerasJSON?, what: String, file: String) throws -> [String] {
        guard let list = value?.array else { throw FoldKitError(.badInput, "model config has no \(what)", file: file) }
        if let single = list.first?.string { return [single] }
        return try list.map { item in
            guard let name = item.array?.first?.string else {
                throw FoldKitError(.badInput, "\(what) entry is not [layer, node, tensor]", file: file)
            }
            return name
        }
    }
}
