import FoldKitCore

/// Which Keras layer classes FoldKit translates, and the refusal of a model holding any other: decided
/// from the model description alone, before any weight is read or extracted, and naming every
/// unsupported layer at once (class, module, how many, which), so one run tells the whole story.
///
/// The classes are those `KerasGraphTranslator` dispatches (Docs/Formats/Keras.md lists what each
/// becomes). A model used as a layer (a `Functional`, `Sequential` or `Model` inside the model) is
/// searched for its own unsupported layers, named by their path (`base/block_1_conv`); tf.keras's
/// operator layers (`TFOpLambda`, `SlicingOpLambda`) are named with their function.
enum KerasLayerSupport {
    /// Every class the translator handles (`KerasLayerClass`).
    static let translatedClasses = Set(KerasLayerClass.allCases.map(\.rawValue))

    /// One unsupported kind of layer: its class (with the function of an operator layer, the module of a
    /// custom class) and the layers of that kind, with their nested-model path ("base/block_1_conv").
    struct Finding: Equatable {
        var kind: String
        /// The Keras class of the layers.
        var className: String
        var layers: [String]
    }

    /// Throws one `unsupported` error listing every unsupported layer of the description `json` (the
    /// parsed `model_config` / `config.json`), or returns when there is none. The error's layer is the
    /// first one found ("fc1 (QDense)"); its `found` lists them all by kind, with counts.
    static func refuseUnsupported(_ json: KerasJSON, file: String) throws {
        let findings = unsupported(in: json)
        guard !findings.isEmpty else { return }
        let count = findings.reduce(0) { $0 + $1.layers.count }
        let listed = findings.map { finding -> String in
            let names = finding.layers.prefix(3).joined(separator: ", ") + (finding.layers.count > 3 ? ", ..." : "")
            return "\(finding.kind): \(finding.layers.count) (\(names))"
        }
        throw FoldKitError(
            .unsupported, "\(count) layer\(count == 1 ? "" : "s") of \(findings.count) unsupported kind\(findings.count == 1 ? "" : "s")",
            file: file, layer: findings.first.map { "\($0.layers[0]) (\($0.className))" },
            expected: "the layer classes of Docs/Formats/Keras.md", found: listed.joined(separator: "; "))
    }

    /// The unsupported layers of a model description (Sequential in both config forms, Functional or
    /// Model), in the order their kinds first appear; nested models are searched too.
    static func unsupported(in json: KerasJSON) -> [Finding] {
        var findings: [Finding] = []
        collect(json, path: "", into: &findings)
        return findings
    }

    private static func collect(_ model: KerasJSON, path: String, into findings: inout [Finding]) {
        let config = model["config"]
        for entry in config?.array ?? config?["layers"]?.array ?? [] {
            guard let className = entry["class_name"]?.string else { continue }
            let name = entry["config"]?["name"]?.string ?? entry["name"]?.string ?? "?"
            let qualified = path + name
            let kind: String
            if KerasModelGraph.modelClasses.contains(className) {
                collect(entry, path: qualified + "/", into: &findings)
                continue
            }
            let call = entry["inbound_nodes"]?.array?.first.flatMap { try? KerasLayerCall.parse($0, file: "", layer: "") }
            switch KerasOperation.recognise(className: className, module: entry["module"]?.string, config: entry["config"], call: call) {
            case .operation: continue
            case .unsupported(let operation): kind = operation
            case .notAnOperation:
                if translatedClasses.contains(className) { continue }
                if KerasApplicationLayers.isKerasOwn(className: className, module: entry["module"]?.string) { continue }
                kind = entry["module"]?.string.map { "\(className) from module '\($0)'" } ?? className
            }
            if let index = findings.firstIndex(where: { $0.kind == kind }) {
                findings[index].layers.append(qualified)
            } else {
                findings.append(Finding(kind: kind, className: className, layers: [qualified]))
            }
        }
    }
}
