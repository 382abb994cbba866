import FoldKitCore
import Foundation

/// One model's graph exactly as its config writes it - a `Sequential` or a `Functional` / `Model` - with
/// every call (inbound node) of every layer, and a model used as a layer parsed into its own graph.
/// `KerasGraphFlattener` turns the tree into the flat layer list FoldKit translates.
///
/// Call numbering: a reference `[layer, node, tensor]` names the node-th call of `layer` among the calls
/// the config lists. Keras 3 (`{"args": ...}` nodes, keras_history) numbers them that way already.
/// tf.keras / Keras 2 (list nodes) counts a nested model's own construction call as node 0 and does not
/// serialise it (tf.keras `functional.py`, `_should_skip_first_node`): its references to such a model are
/// renumbered here, so that every `KerasTensorReference.node` indexes `KerasLayerEntry.calls`.
struct KerasModelGraph {
    var name: String
    var className: String
    /// Every layer but the InputLayers, in config order.
    var entries: [KerasLayerEntry]
    /// The InputLayers in the order of the model's inputs (for a Sequential: one, possibly a placeholder).
    var inputs: [KerasInputLayer]
    var outputs: [KerasTensorReference]
    var isSequential: Bool

    /// A Sequential without an InputLayer reads a tensor of this name.
    static let inputPlaceholder = "__input__"

    /// Classes of a model used as a layer.
    static let modelClasses: Set<String> = ["Functional", "Sequential", "Model"]

    /// Parses a model's `class_name` / `config` pair (the top-level description or a nested model's layer entry).
    static func parse(className: String, config: KerasJSON, name: String, file: String, path: String) throws -> KerasModelGraph {
        switch className {
        case "Sequential": return try parseSequential(config, name: name, file: file, path: path)
        case "Model", "Functional": return try parseFunctional(config, className: className, name: name, file: file, path: path)
        default:
            throw FoldKitError(
                .unsupported, "model class '\(className)' is not supported", file: file,
                expected: "Sequential, Model or Functional", found: className)
        }
    }

    /// Whether tf.keras numbered this nested model's calls from 1: a Functional always, a Sequential when it
    /// starts with an InputLayer (it was built with an input shape).
    var skipsConstructionCall: Bool { !isSequential || inputs.first?.isDeclared == true }

    private static func entry(_ json: KerasJSON, index: Int, file: String, path: String) throws -> (
        name: String, className: String, module: String?, config: KerasJSON
    ) {
        guard let className = json["class_name"]?.string, let config = json["config"] else {
            throw FoldKitError(.badInput, "layer entry \(index) has no class_name/config", file: file, layer: path.isEmpty ? nil : path)
        }
        guard let name = config["name"]?.string ?? json["name"]?.string else {
            throw FoldKitError(.badInput, "layer entry \(index) (\(className)) has no name", file: file, layer: path.isEmpty ? nil : path)
        }
        return (name, className, json["module"]?.string, config)
    }

    private static func parseSequential(_ config: KerasJSON, name: String, file: String, path: String) throws -> KerasModelGraph {
        let list: [KerasJSON]
        var buildShape: KerasJSON?
        if let array = config.array {
            list = array
        } else if let array = config["layers"]?.array {
            list = array
            buildShape = config["build_input_shape"]
        } else {
            throw FoldKitError(.badInput, "Sequential config has no layer list", file: file, layer: path.isEmpty ? nil : path)
        }
        var entries: [KerasLayerEntry] = []
        var input = KerasInputLayer(name: inputPlaceholder, shape: nil, isDeclared: false)
        var previous: String?
        for (index, json) in list.enumerated() {
            let (layerName, className, module, layerConfig) = try entry(json, index: index, file: file, path: path)
            if className == "InputLayer" {
                guard previous == nil else {
                    throw FoldKitError(
                        .badInput, "InputLayer in the middle of a Sequential model", file: file, layer: "\(path)\(layerName) (InputLayer)")
                }
                input = KerasInputLayer(name: layerName, shape: shape(from: layerConfig), isDeclared: true)
                previous = layerName
                continue
            }
            if input.shape == nil, previous == nil { input.shape = shape(from: layerConfig) }
            let nested = try nestedGraph(className: className, config: layerConfig, name: layerName, file: file, path: path)
            entries.append(
                KerasLayerEntry(
                    name: layerName, className: className, module: module, config: layerConfig,
                    calls: [
                        KerasLayerCall(inputs: [KerasTensorReference(layer: previous ?? input.name, node: 0, tensor: 0)], positional: [.tensor(0)])
                    ], nested: nested))
            previous = layerName
        }
        if input.shape == nil, let dims = buildShape?.array { input.shape = Array(dims.dropFirst().map { $0.int }) }
        guard let last = previous, !entries.isEmpty else {
            throw FoldKitError(.badInput, "Sequential model has no layers", file: file, layer: path.isEmpty ? nil : path)
        }
        return KerasModelGraph(
            name: name, className: "Sequential", entries: entries, inputs: [input],
            outputs: [KerasTensorReference(layer: last, node: 0, tensor: 0)], isSequential: true)
    }

    /// batch_input_shape (Keras 1/2), batch_shape (Keras 3), input_shape or input_dim (Keras 1 Dense),
    /// without the batch axis.
    static func shape(from config: KerasJSON) -> [Int?]? {
        if let dims = (config["batch_input_shape"] ?? config["batch_shape"])?.array { return Array(dims.dropFirst().map { $0.int }) }
        if let dims = config["input_shape"]?.array { return dims.map { $0.int } }
        if let n = config["input_dim"]?.int { return [n] }
        return nil
    }

    private static func nestedGraph(className: String, config: KerasJSON, name: String, file: String, path: String) throws -> KerasModelGraph? {
        guard modelClasses.contains(className) else { return nil }
        return try parse(className: className, config: config, name: name, file: file, path: "\(path)\(name)/")
    }

    private static func parseFunctional(_ config: KerasJSON, className: String, name: String, file: String, path: String) throws
        -> KerasModelGraph
    {
        let location = path.isEmpty ? nil : path
        guard let list = config["layers"]?.array else {
            throw FoldKitError(.badInput, "\(className) config has no layers", file: file, layer: location)
        }
        var entries: [KerasLayerEntry] = []
        var inputLayers: [String: KerasInputLayer] = [:]
        var listNumbering = false
        for (index, json) in list.enumerated() {
            let (layerName, layerClass, module, layerConfig) = try entry(json, index: index, file: file, path: path)
            let label = "\(path)\(layerName) (\(layerClass))"
            if layerClass == "InputLayer" {
                inputLayers[layerName] = KerasInputLayer(name: layerName, shape: shape(from: layerConfig) ?? [], isDeclared: true)
                continue
            }
            let nodes = json["inbound_nodes"]?.array ?? []
            guard !nodes.isEmpty else { throw FoldKitError(.badInput, "layer has no inbound node", file: file, layer: label) }
            let calls = try nodes.map { node -> KerasLayerCall in
                if node["args"] == nil { listNumbering = true }
                return try KerasLayerCall.parse(node, file: file, layer: label)
            }
            let nested = try nestedGraph(className: layerClass, config: layerConfig, name: layerName, file: file, path: path)
            entries.append(KerasLayerEntry(name: layerName, className: layerClass, module: module, config: layerConfig, calls: calls, nested: nested))
        }
        let inputRefs = try KerasTensorReference.endpoints(config["input_layers"], what: "input_layers", file: file)
        var outputs = try KerasTensorReference.endpoints(config["output_layers"], what: "output_layers", file: file)
        let inputs = try inputRefs.map { ref -> KerasInputLayer in
            guard let input = inputLayers[ref.layer] else {
                throw FoldKitError(.badInput, "model input '\(ref.layer)' is not an InputLayer", file: file, layer: location)
            }
            return input
        }
        guard !outputs.isEmpty else { throw FoldKitError(.badInput, "model has no outputs", file: file, layer: location) }
        if listNumbering {
            let skipping = Set(entries.filter { $0.nested?.skipsConstructionCall == true }.map(\.name))
            func renumber(_ ref: KerasTensorReference) -> KerasTensorReference {
                guard skipping.contains(ref.layer) else { return ref }
                return KerasTensorReference(layer: ref.layer, node: ref.node - 1, tensor: ref.tensor)
            }
            for index in entries.indices { entries[index].calls = entries[index].calls.map { $0.mapInputs(renumber) } }
            outputs = outputs.map(renumber)
        }
        return KerasModelGraph(name: name, className: className, entries: entries, inputs: inputs, outputs: outputs, isSequential: false)
    }
}
