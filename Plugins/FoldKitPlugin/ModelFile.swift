import Foundation
import PackagePlugin

/// One model among a target's files: its name (the file stem), the files `foldkit convert` reads, and the
/// class names file that goes with it.
struct ModelFile {
    let stem: String
    let files: [URL]
    /// `NAME.names` beside the model, else the only `.names` file of its folder (as `foldkit convert` finds it
    /// by itself), passed as `--names` and an input of the command so that editing it converts again.
    var names: URL?

    /// Darknet pairs (`.cfg` + `.weights` of the same stem in the same folder) and single-file Keras
    /// models, in path order so that the commands come out in the same order every build.
    static func find(in files: [URL]) -> [ModelFile] {
        let present = Set(files.map(\.path))
        var models: [ModelFile] = []
        for file in files.sorted(by: { $0.path < $1.path }) {
            let stem = file.deletingPathExtension().lastPathComponent
            switch file.pathExtension.lowercased() {
            case "cfg":
                let weights = file.deletingLastPathComponent().appendingPathComponent(stem + ".weights")
                if present.contains(weights.path) {
                    models.append(ModelFile(stem: stem, files: [file, weights], names: namesFile(beside: file)))
                } else {
                    Diagnostics.warning("\(file.path): no \(weights.lastPathComponent) beside it, so FoldKit's plugin does not convert it")
                }
            case "h5", "hdf5", "keras":
                models.append(ModelFile(stem: stem, files: [file], names: namesFile(beside: file)))
            default:
                break
            }
        }
        return models
    }

    /// The class names file of the model `file`: `NAME.names` in its folder, else the only `.names` file there
    /// (read from disk: a target usually excludes it from its sources).
    static func namesFile(beside file: URL) -> URL? {
        let folder = file.deletingLastPathComponent()
        let sameName = folder.appendingPathComponent(file.deletingPathExtension().lastPathComponent + ".names")
        if FileManager.default.fileExists(atPath: sameName.path) { return sameName }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".names") }.sorted()
        return names.count == 1 ? folder.appendingPathComponent(names[0]) : nil
    }
}
