import FoldKitCore

/// Flattens a model graph with models used as layers (to any depth) and layers called more than once
/// into one list of layer calls over unique names.
///
/// - A nested model's call is replaced by its layers, named `<model>/<layer>`; the model's inputs read
///   what the call reads, and a reference to the model's k-th output reads its k-th output layer.
/// - The n-th call (n >= 1) of a shared layer or nested model is named `<name>@n`; all calls of a layer
///   keep one `weightPath` and `archivePath`, so they read one set of weights.
/// - Keras 3 archives store a nested model's layers under `<model path>/layers/<snake_case(class)>[_k]`.
struct KerasGraphFlattener {
    let file: String
    private(set) var layers: [KerasLayerDescription] = []

    init(file: String) { self.file = file }

    /// Flattens `graph` whose inputs are read from `bindings` (flat names) and returns its outputs' flat names.
    mutating func expand(
        _ graph: KerasModelGraph, prefix: String, weightPrefix: [String], archivePrefix: String, bindings: [String]
    ) throws -> [String] {
        guard bindings.count == graph.inputs.count else {
            throw FoldKitError(
                .badInput, "nested model is called with \(bindings.count) inputs", file: file, layer: prefix.isEmpty ? nil : prefix,
                expected: "\(graph.inputs.count)", found: "\(bindings.count)")
        }
        let archiveNames = KerasWeightStore.archiveNames(for: graph.entries.map(\.className))
        // entry name -> call index -> the flat names of that call's outputs
        var produced: [String: [Int: [String]]] = [:]
        for (input, binding) in zip(graph.inputs, bindings) { produced[input.name] = [0: [binding]] }

        var pending = graph.entries.indices.flatMap { entry in graph.entries[entry].calls.indices.map { (entry, $0) } }
        while !pending.isEmpty {
            var waiting: [(Int, Int)] = []
            for (entryIndex, callIndex) in pending {
                let entry = graph.entries[entryIndex]
                let call = entry.calls[callIndex]
                guard let inbound = try inboundNames(of: call, label: "\(prefix)\(entry.name) (\(entry.className))", produced: produced) else {
                    waiting.append((entryIndex, callIndex))
                    continue
                }
                let flatName = prefix + entry.name + (callIndex == 0 ? "" : "@\(callIndex)")
                let archivePath = "\(archivePrefix)/\(archiveNames[entryIndex])"
                if let nested = entry.nested {
                    produced[entry.name, default: [:]][callIndex] = try expand(
                        nested, prefix: flatName + "/", weightPrefix: weightPrefix + [entry.name], archivePrefix: archivePath + "/layers",
                        bindings: inbound)
                } else {
                    layers.append(
                        KerasLayerDescription(
                            name: flatName, className: entry.className, module: entry.module, config: entry.config, inboundLayers: inbound,
                            call: call, weightPath: weightPrefix + [entry.name], archivePath: archivePath))
                    produced[entry.name, default: [:]][callIndex] = [flatName]
                }
            }
            if waiting.count == pending.count {
                try appendUnresolved(
                    waiting, of: graph, prefix: prefix, weightPrefix: weightPrefix, archivePrefix: archivePrefix, archiveNames: archiveNames,
                    produced: produced)
                break
            }
            pending = waiting
        }
        return try graph.outputs.map { reference in
            switch Self.resolve(reference, in: produced) {
            case .some(.some(let name)): return name
            // Left to the translator, which names it after translating what it can.
            case .none: return prefix + reference.layer
            case .some(.none):
                throw FoldKitError(
                    .badInput, "model output refers to output \(reference.tensor) of '\(reference.layer)', which has no such output",
                    file: file, layer: prefix.isEmpty ? nil : prefix)
            }
        }
    }

    /// The output a reference names: `.none` when its layer call has not been expanded yet, `.some(nil)` when
    /// that call has no such output.
    private static func resolve(_ reference: KerasTensorReference, in produced: [String: [Int: [String]]]) -> String?? {
        guard let outputs = produced[reference.layer]?[reference.node] else { return .none }
        return .some(reference.tensor >= 0 && reference.tensor < outputs.count ? outputs[reference.tensor] : nil)
    }

    /// The flat names a call reads, or nil while one of them is not produced yet; a reference to an output
    /// its layer does not have is refused, naming the layer (`label`).
    private func inboundNames(of call: KerasLayerCall, label: String, produced: [String: [Int: [String]]]) throws -> [String]? {
        var inbound: [String] = []
        for reference in call.inputs {
            switch Self.resolve(reference, in: produced) {
            case .none: return nil
            case .some(.none):
                throw FoldKitError(
                    .unsupported, "input refers to output \(reference.tensor) of '\(reference.layer)', which has no such output",
                    file: file, layer: label, found: "[\(reference.layer), \(reference.node), \(reference.tensor)]")
            case .some(.some(let name)): inbound.append(name)
            }
        }
        return inbound
    }

    /// When nothing more resolves: plain layers go out reading names no layer produces (the translator
    /// translates what it can first, so a bad layer is named for itself, and then names these); a nested
    /// model left waiting is refused.
    private mutating func appendUnresolved(
        _ waiting: [(Int, Int)], of graph: KerasModelGraph, prefix: String, weightPrefix: [String], archivePrefix: String, archiveNames: [String],
        produced: [String: [Int: [String]]]
    ) throws {
        for (entryIndex, callIndex) in waiting {
            let entry = graph.entries[entryIndex]
            let call = entry.calls[callIndex]
            guard entry.nested == nil else {
                throw FoldKitError(
                    .badInput, "nested model reads from unknown or cyclic inputs", file: file,
                    layer: "\(prefix)\(entry.name) (\(entry.className))",
                    found: call.inputs.map { "\($0.layer) call \($0.node)" }.joined(separator: ", "))
            }
            let inbound = call.inputs.map { reference -> String in
                if case .some(.some(let name)) = Self.resolve(reference, in: produced) { return name }
                return "\(prefix)\(reference.layer) call \(reference.node)"
            }
            layers.append(
                KerasLayerDescription(
                    name: prefix + entry.name + (callIndex == 0 ? "" : "@\(callIndex)"), className: entry.className,
                    module: entry.module, config: entry.config, inboundLayers: inbound, call: call,
                    weightPath: weightPrefix + [entry.name], archivePath: "\(archivePrefix)/\(archiveNames[entryIndex])"))
        }
    }
}
