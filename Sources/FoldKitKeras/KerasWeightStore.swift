import FoldKitCore
import Foundation

/// Where a Keras file keeps each layer's weights.
///
/// - `legacy`: Keras 1/2, tf.keras and Keras 3 `.h5`: group `<root>/<layer name>` whose attribute
///   `weight_names` lists the datasets in the layer's weight order (never alphabetical). `root` is
///   `model_weights` in full-model files and the file root in weights-only files. Keras splits long
///   attributes into `weight_names0`, `weight_names1`, ...; those are joined.
/// - `keras3`: `model.weights.h5` inside a `.keras` archive: `layers/<path>/vars/0, 1, ...` where
///   `<path>` is the snake-case class name made unique with `_1`, `_2`... in layer order (Keras 3
///   `saving_lib` does not address layers by their names).
struct KerasWeightStore {
    enum Layout {
        case legacy(root: String)
        case keras3(paths: [String: String])
    }

    let file: HDF5File
    let layout: Layout

    /// The layer's weight arrays in stored order; empty if the layer has none.
    func arrays(forLayer layer: String) throws -> [KerasWeightArray] {
        switch layout {
        case .legacy(let root):
            let group = root.isEmpty ? layer : "\(root)/\(layer)"
            guard file.exists(group) else { return [] }
            let names = try Self.chunkedStrings(file, "weight_names", at: group)
            return try names.map { name in
                let read = try file.readNumbers("\(group)/\(name)")
                return KerasWeightArray(name: name, shape: read.shape, values: read.values, isInteger: read.isInteger, path: "\(group)/\(name)")
            }
        case .keras3(let paths):
            guard let path = paths[layer] else { return [] }
            let vars = "\(path)/vars"
            guard file.exists(vars) else { return [] }
            let members = try file.memberNames(vars).compactMap { name -> (Int, String)? in Int(name).map { ($0, name) } }.sorted { $0.0 < $1.0 }
            for (expected, member) in members.enumerated() where member.0 != expected {
                throw FoldKitError(
                    .badInput, "weights of layer '\(layer)' are not numbered 0, 1, ...", file: file.path,
                    layer: layer, expected: "vars/\(expected)", found: "vars/\(member.1)")
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
        case .keras3(let paths):
            let byPath = Dictionary(paths.map { ($0.value, $0.key) }, uniquingKeysWith: { a, _ in a })
            guard file.exists("layers") else { return [] }
            return try file.memberNames("layers").compactMap { member in
                let path = "layers/\(member)"
                guard file.exists("\(path)/vars") else { return nil }
                guard !(try file.memberNames("\(path)/vars")).isEmpty else { return nil }
                return byPath[path] ?? path
            }
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

    /// Keras 3's storage paths: `layers/<snake_case(class)>[_k]`, numbered per class name in layer
    /// order. Sequential models do not store their InputLayer.
    static func keras3Paths(for layers: [(name: String, className: String)]) -> [String: String] {
        var used: [String: Int] = [:]
        var paths: [String: String] = [:]
        for layer in layers {
            var name = KerasLayout.snakeCase(layer.className)
            if let count = used[name] {
                used[name] = count + 1
                name = "\(name)_\(count + 1)"
            } else {
                used[name] = 0
            }
            paths[layer.name] = "layers/\(name)"
        }
        return paths
    }
}
