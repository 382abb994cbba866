import FoldKitCore

/// A tensor one layer call reads: the `tensor`-th output of the `node`-th call of `layer`
/// (`[layer, node, tensor]` in Keras 1/2 configs, `keras_history` in Keras 3).
struct KerasTensorReference: Equatable {
    var layer: String
    var node: Int
    var tensor: Int

    /// A reference written as `[name, node, tensor]` or `[name, node, tensor, {kwargs}]`; nil for anything else.
    static func fromList(_ value: KerasJSON) -> KerasTensorReference? {
        guard let parts = value.array, (3...4).contains(parts.count), let name = parts[0].string, let node = parts[1].int,
            let tensor = parts[2].int
        else { return nil }
        return KerasTensorReference(layer: name, node: node, tensor: tensor)
    }

    /// A Keras 3 `{"class_name": "__keras_tensor__", "config": {"keras_history": [name, node, tensor]}}`; nil otherwise.
    static func fromKerasTensor(_ value: KerasJSON) -> KerasTensorReference? {
        guard value["class_name"]?.string == "__keras_tensor__", let history = value["config"]?["keras_history"]?.array,
            let name = history.first?.string
        else { return nil }
        return KerasTensorReference(
            layer: name, node: history.count > 1 ? history[1].int ?? 0 : 0, tensor: history.count > 2 ? history[2].int ?? 0 : 0)
    }

    /// input_layers / output_layers: `[[name, node, tensor], ...]` or a single `[name, node, tensor]` (Keras 3, one endpoint).
    static func endpoints(_ value: KerasJSON?, what: String, file: String) throws -> [KerasTensorReference] {
        guard let list = value?.array else { throw FoldKitError(.badInput, "model config has no \(what)", file: file) }
        if let single = fromList(value ?? .null) { return [single] }
        return try list.map { item in
            guard let reference = fromList(item) else {
                throw FoldKitError(.badInput, "\(what) entry is not [layer, node, tensor]", file: file, found: "\(item)")
            }
            return reference
        }
    }
}
