import FoldKitCore
import Foundation

/// Where a Keras file keeps each layer's weights.
///
/// - `legacy`: Keras 1/2, tf.keras and Keras 3 `.h5`: group `<root>/<layer name>` whose attribute
///   `weight_names` lists the datasets in the layer's weight order (never alphabetical). `root` is
///   `model_weights` in full-model files and the file root in weights-only files. Keras splits long
///   attributes into `weight_names0`, `weight_names1`, ...; those are joined.
/// - `keras3`: `model.weights.h5` inside a `.keras` archive: `<archive path>/vars/0, 1, ...` where the
///   path is `layers/<name>`, nested models' layers `layers/<model>/layers/<name>`, each `<name>` as
///   `archiveNames` gives it.
struct KerasWeightStore {
    enum Layout {
        case legacy(root: String)
        case keras3
    }

    let file: HDF5File
    let layout: Layout
    /// Legacy files: for each weight path of a layer inside a nested model (`base/Conv1`), the weight names
    /// of its top-level group (`base`) that belong to it, in stored order.
    private var nestedWeightNames: [String: [String]] = [:]

    /// A store for the layers of a flattened description. In legacy files a nested model's weights are
    /// all listed by the group of the outermost model; each name's directory part (`Conv1/kernel:0` in
    /// tf.keras, `stem/stem_conv/kernel` in Keras 3) names its layer, and is matched to the layer whose
    /// path inside that model shares the longest tail with it.
    init(file: HDF5File, layout: Layout, layers: [KerasLayerDescription]) throws {
        self.file = file
        self.layout = layout
        guard case .legacy(let root) = layout else { return }
        var paths: [String: Set<[String]>] = [:]
        for layer in layers where layer.weightPath.count > 1 { paths[layer.weightPath[0], default: []].insert(Array(layer.weightPath.dropFirst())) }
        for (top, inner) in paths {
            let group = root.isEmpty ? top : "\(root)/\(top)"
            guard file.exists(group) else { continue }
            let candidates = inner.sorted { $0.lexicographicallyPrecedes($1) }
            for name in try Self.chunkedStrings(file, "weight_names", at: group) {
                let directory = name.split(separator: "/").dropLast().map(String.init)
                let scored = candidates.map { path in (path, zip(path.reversed(), directory.reversed()).prefix { $0 == $1 }.count) }
                let best = scored.map(\.1).max() ?? 0
                let owners = scored.filter { $0.1 == best && best > 0 }
                guard owners.count == 1, let owner = owners.first?.0 else {
                    throw FoldKitError(
                        .badInput,
                        owners.isEmpty
                            ? "weight '\(name)' of nested model '\(top)' belongs to none of its layers"
                            : "weight '\(name)' of nested model '\(top)' matches several of its layers",
                        file: file.displayName, layer: top, found: owners.map { $0.0.joined(separator: "/") }.joined(separator: ", "))
                }
                nestedWeightNames[([top] + owner).joined(separator: "/"), default: []].append(name)
            }
        }
    }

    /// What the unused-weights check calls the storage of `layer`: its group (legacy; a nested model's
    /// outermost group) or its archive path.
    func storageKey(for layer: KerasLayerDescription) -> String {
        switch layout {
        case .legacy: return layer.weightPath.first ?? layer.name
        case .keras3: return layer.archivePath
        }
    }

    /// The layer's weight arrays in stored order; empty if the layer has none.
    func arrays(for layer: KerasLayerDescription) throws -> [KerasWeightArray] {
        switch layout {
        case .legacy(let root):
            guard let top = layer.weightPath.first else { return [] }
            let group = root.isEmpty ? top : "\(root)/\(top)"
            try file.refuseExternalLinks(group)
            guard file.exists(group) else { return [] }
            let names =
                layer.weightPath.count > 1
                ? nestedWeightNames[layer.weightPath.joined(separator: "/")] ?? [] : try Self.chunkedStrings(file, "weight_names", at: group)
            // Each name once: a damaged string attribute can read as another entry of the list (a global heap
            // ID whose object is gone reads, in libhdf5 1.10, as the object before it), and the layer
            // would take one array for two of its weights.
            var seen = Set<String>()
            if let repeated = names.first(where: { !seen.insert($0).inserted }) {
                throw FoldKitError(
                    .badInput, "weight_names of layer '\(layer.name)' lists '\(repeated)' twice: the attribute is damaged",
                    file: file.displayName, layer: layer.label, expected: "each weight named once", found: names.joined(separator: ", "))
            }
            return try names.map { name in
                let read = try file.readNumbers("\(group)/\(name)")
                return KerasWeightArray(name: name, shape: read.shape, values: read.values, isInteger: read.isInteger, path: "\(group)/\(name)")
            }
        case .keras3:
            let vars = "\(layer.archivePath)/vars"
            try file.refuseExternalLinks(vars)
            guard file.exists(vars) else { return [] }
            let members = try file.memberNames(vars).compactMap { name -> (Int, String)? in Int(name).map { ($0, name) } }.sorted { $0.0 < $1.0 }
            for (expected, member) in members.enumerated() where member.0 != expected {
                throw FoldKitError(
                    .badInput, "weights of layer '\(layer.name)' are not numbered 0, 1, ...", file: file.displayName,
                    layer: layer.label, expected: "vars/\(expected)", found: "vars/\(member.1)")
            }
            return try members.map { _, name in
                let read = try file.readNumbers("\(vars)/\(name)")
                return KerasWeightArray(
                    name: "vars/\(name)", shape: read.shape, values: read.values, isInteger: read.isInteger, path: "\(vars)/\(name)")
            }
        }
    }

    /// Names of the layers that hold at least one weight array in the file (to find weights that
    /// the model description does not use).
    func layersWithWeights() throws -> [String] {
        switch layout {
        case .legacy(let root):
            let at = root.isEmpty ? "/" : root
            let names = try Self.chunkedStrings(file, "layer_names", at: at)
            return try names.filter { name in
                let group = root.isEmpty ? name : "\(root)/\(name)"
                guard file.exists(group) else { return false }
                return !(try Self.chunkedStrings(file, "weight_names", at: group)).isEmpty
            }
        case .keras3:
            // Every group holding a non-empty `vars`, nested models' layers included.
            var found: [String] = []
            func walk(_ path: String) throws {
                guard file.isGroup(path) else { return }
                if file.exists("\(path)/vars"), !(try file.memberNames("\(path)/vars")).isEmpty { found.append(path) }
                if file.isGroup("\(path)/layers") {
                    for member in try file.memberNames("\(path)/layers") { try walk("\(path)/layers/\(member)") }
                }
            }
            guard file.isGroup("layers") else { return [] }
            for member in try file.memberNames("layers") { try walk("layers/\(member)") }
            return found
        }
    }

    /// True if the file root lists `layer_names` (the legacy weights-only layout), possibly split.
    static func hasLayerNames(_ file: HDF5File) -> Bool {
        file.hasAttribute("layer_names") || file.hasAttribute("layer_names0")
    }

    /// A string-array attribute, joined from `name0`, `name1`, ... when Keras split it.
    static func chunkedStrings(_ file: HDF5File, _ name: String, at path: String) throws -> [String] {
        if file.hasAttribute(name, at: path) { return try file.stringsAttribute(name, at: path) }
        var result: [String] = []
        var chunk = 0
        while file.hasAttribute("\(name)\(chunk)", at: path) {
            result += try file.stringsAttribute("\(name)\(chunk)", at: path)
            chunk += 1
        }
        return result
    }

    /// Keras 3's storage names of one model's layers (archive `layers/<name>`): `snake_case(class)`, made
    /// unique per class name in layer order with `_1`, `_2`, ... (Keras 3 `saving_lib` does not address
    /// layers by their names). InputLayers are not counted (no other class shares their name).
    static func archiveNames(for classNames: [String]) -> [String] {
        var used: [String: Int] = [:]
        return classNames.map { className in
            let name = KerasLayout.snakeCase(className)
            guard let count = used[name] else {
                used[name] = 0
                return name
            }
            used[name] = count + 1
            return "\(name)_\(count + 1)"
        }
    }
}
