import PackagePlugin

/// One model among a target's files: its name (the file stem) and the files `foldkit convert` reads.
struct ModelFile {
    let stem: String
    let files: [Path]

    /// Darknet pairs (`.cfg` + `.weights` of the same stem in the same folder) and single-file Keras
    /// models, in path order so that the commands come out in the same order every build.
    static func find(in paths: [Path]) -> [ModelFile] {
        let present = Set(paths.map(\.string))
        var models: [ModelFile] = []
        for path in paths.sorted(by: { $0.string < $1.string }) {
            switch path.extension?.lowercased() {
            case "cfg":
                let weights = path.removingLastComponent().appending(path.stem + ".weights")
                if present.contains(weights.string) {
                    models.append(ModelFile(stem: path.stem, files: [path, weights]))
                } else {
                    Diagnostics.warning("\(path.string): no \(weights.lastComponent) beside it, so FoldKitPlugin does not convert it")
                }
            case "h5", "hdf5", "keras":
                models.append(ModelFile(stem: path.stem, files: [path]))
            default:
                break
            }
        }
        return models
    }
}
