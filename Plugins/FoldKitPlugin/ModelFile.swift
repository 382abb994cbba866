import Foundation
import PackagePlugin

/// One model among a target's files: its name (the file stem) and the files `foldkit convert` reads.
struct ModelFile {
    let stem: String
    let files: [URL]

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
                    models.append(ModelFile(stem: stem, files: [file, weights]))
                } else {
                    Diagnostics.warning("\(file.path): no \(weights.lastPathComponent) beside it, so FoldKitPlugin does not convert it")
                }
            case "h5", "hdf5", "keras":
                models.append(ModelFile(stem: stem, files: [file]))
            default:
                break
            }
        }
        return models
    }
}
