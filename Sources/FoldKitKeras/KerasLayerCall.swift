import FoldKitCore

/// One call (inbound node) of a layer: the tensors it reads and its arguments.
///
/// - Keras 1/2 (tf.keras): `[[name, node, tensor, {kwargs}], ...]`. One entry is the call's single
///   argument; several entries are the elements of its one list argument (Add, Concatenate, `tf.concat`).
///   tf.keras operator layers (`TFOpLambda`) write a node with one argument as the bare entry
///   `[name, node, tensor, {kwargs}]`, a constant first operand as `["_CONSTANT_VALUE", -1, value, {kwargs}]`,
///   and their other arguments in the first entry's kwargs, tensors there as `[name, node, tensor]`.
/// - Keras 3: `{"args": [...], "kwargs": {...}}`, tensors as `__keras_tensor__` objects, alone or in lists.
struct KerasLayerCall {
    /// Every tensor the call reads, positional arguments first, then keyword arguments by name.
    var inputs: [KerasTensorReference] = []
    var positional: [KerasOperand] = []
    var keywords: [String: KerasOperand] = [:]
    /// Written in Keras 3's dict form.
    var isKeras3 = false

    static let constantMarker = "_CONSTANT_VALUE"

    static func parse(_ node: KerasJSON, file: String, layer: String) throws -> KerasLayerCall {
        var call = KerasLayerCall()
        if let args = node["args"] {
            call.isKeras3 = true
            for arg in args.array ?? [args] { call.positional.append(call.operand(arg)) }
            for (key, value) in (node["kwargs"]?.object ?? [:]).sorted(by: { $0.key < $1.key }) { call.keywords[key] = call.operand(value) }
            if call.inputs.isEmpty { throw FoldKitError(.badInput, "inbound node has no keras tensors", file: file, layer: layer) }
            return call
        }
        // TFOpLambda writes its one node as a bare entry `[name, node, tensor, {kwargs}]`.
        let entries = node.array?.first?.string != nil ? KerasJSON.array([node]) : node
        guard let items = entries.array, !items.isEmpty else {
            throw FoldKitError(.badInput, "inbound node is neither a non-empty list nor a dict", file: file, layer: layer)
        }
        var elements: [Int] = []
        for item in items {
            guard let parts = item.array, parts.count >= 3, let name = parts[0].string else {
                throw FoldKitError(.badInput, "inbound node entry is not [layer, node, tensor]", file: file, layer: layer, found: "\(item)")
            }
            if name == constantMarker {
                call.positional.append(.value(parts[2]))
                continue
            }
            guard let reference = KerasTensorReference.fromList(KerasJSON.array(Array(parts.prefix(3)))) else {
                throw FoldKitError(.badInput, "inbound node entry is not [layer, node, tensor]", file: file, layer: layer, found: "\(item)")
            }
            elements.append(call.inputs.count)
            call.inputs.append(reference)
        }
        if items.count == 1 {
            call.positional += elements.map { .tensor($0) }
        } else {
            call.positional.append(.tensors(elements))
        }
        let first = items[0].array ?? []
        if first.count > 3, let kwargs = first[3].object {
            for (key, value) in kwargs.sorted(by: { $0.key < $1.key }) {
                if let reference = KerasTensorReference.fromList(value) {
                    call.keywords[key] = .tensor(call.inputs.count)
                    call.inputs.append(reference)
                } else {
                    call.keywords[key] = .value(value)
                }
            }
        }
        if call.inputs.isEmpty { throw FoldKitError(.badInput, "inbound node reads no tensor", file: file, layer: layer) }
        return call
    }

    /// A Keras 3 argument: a keras tensor, a list of them, or a value.
    private mutating func operand(_ value: KerasJSON) -> KerasOperand {
        if let reference = KerasTensorReference.fromKerasTensor(value) {
            inputs.append(reference)
            return .tensor(inputs.count - 1)
        }
        if let list = value.array, !list.isEmpty, list.allSatisfy({ KerasTensorReference.fromKerasTensor($0) != nil }) {
            let start = inputs.count
            inputs += list.compactMap(KerasTensorReference.fromKerasTensor)
            return .tensors(Array(start..<inputs.count))
        }
        return .value(value)
    }

    /// The same call reading `inputs` renumbered by `transform` (tf.keras nested-model call numbering).
    func mapInputs(_ transform: (KerasTensorReference) -> KerasTensorReference) -> KerasLayerCall {
        var copy = self
        copy.inputs = inputs.map(transform)
        return copy
    }
}
