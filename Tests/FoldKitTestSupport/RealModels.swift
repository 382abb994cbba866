import Foundation

/// The real trained models of `../shared/real-models`, as the commands take them: Darknet cfg + weights
/// pairs, single-file Keras models (`.h5`, `.hdf5`, `.keras`), and Keras JSON model configs with their
/// weights file. `TestData.sharedFile` decides what happens when the folder is missing.
public enum RealModels {
    /// One model: the name of its first file, and every file a command is given.
    public struct Model: Sendable {
        /// The first file's name (`yolo-fastest-1.1.cfg`, `12net.h5`).
        public var name: String
        /// The files, in the order the commands take them.
        public var files: [String]
        /// A Darknet cfg + weights pair.
        public var isDarknet: Bool { name.hasSuffix(".cfg") }
    }

    /// QKeras's quantised layers are refused by design (Docs/Formats/Keras.md; `KerasRealModelTests` checks
    /// the refusal).
    public static let refused = ["qkeras-v3_3layer.keras"]

    /// Every model, folder by folder in name order.
    public static func all() throws -> [Model] {
        let root = try TestData.sharedFile("real-models")
        var models: [Model] = []
        for folder in try FileManager.default.contentsOfDirectory(atPath: root.path).sorted() {
            let dir = root.appendingPathComponent(folder)
            guard let files = try? FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() else { continue }
            func path(_ name: String) -> String { dir.appendingPathComponent(name).path }
            for file in files {
                let stem = (file as NSString).deletingPathExtension
                if file.hasSuffix(".cfg"), files.contains(stem + ".weights") {
                    models.append(Model(name: file, files: [path(file), path(stem + ".weights")]))
                } else if file.hasSuffix(".json"),
                    (try? String(contentsOfFile: path(file), encoding: .utf8))?.contains("\"class_name\"") == true,
                    let weights = [stem + "_weights.h5", stem.replacingOccurrences(of: "_config", with: "_weights") + ".h5"]
                        .first(where: { files.contains($0) && $0.contains("_weights") })
                {
                    models.append(Model(name: file, files: [path(file), path(weights)]))
                } else if [".h5", ".hdf5", ".keras"].contains(where: file.hasSuffix), !file.contains("_weights") {
                    models.append(Model(name: file, files: [path(file)]))
                }
            }
        }
        return models
    }

    /// The Darknet models (cfg + weights pairs).
    public static func darknet() throws -> [Model] { try all().filter(\.isDarknet) }

    /// The Keras models FoldKit reads (all but `refused`).
    public static func keras() throws -> [Model] { try all().filter { !$0.isDarknet && !refused.contains($0.name) } }

    /// Size arguments for a model whose input size is undefined: MTCNN's 12net is given 24 x 24.
    public static func kerasSize(_ model: Model) -> [String] {
        model.name == "12net.h5" ? ["--height", "24", "--width", "24"] : []
    }
}
