import FoldKitCore
import Foundation

/// Class names for detections: one name a line (Darknet's `.names` files; blank trailing lines ignored).
package enum ClassNames {
    /// The names in `path`, one a line.
    package static func read(path: String) throws -> [String] {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw FoldKitError(.io, "cannot read the class names file", file: path)
        }
        var names = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map {
            $0.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        while names.last?.isEmpty == true { names.removeLast() }
        return names
    }

    /// The names file that goes with a Darknet model, found beside its cfg: the `.names` file with the
    /// cfg's base name (`yolov3.cfg` -> `yolov3.names`) if there is one, else the only `.names` file of the
    /// cfg's folder; nil when there is none or several without that base name (then pass `--names`).
    package static func discover(besideConfig configPath: String) -> String? {
        let config = URL(fileURLWithPath: configPath)
        let folder = config.deletingLastPathComponent()
        let sameName = config.deletingPathExtension().appendingPathExtension("names").path
        if FileManager.default.fileExists(atPath: sameName) { return sameName }
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        let names = files.filter { $0.hasSuffix(".names") }.sorted()
        return names.count == 1 ? folder.appendingPathComponent(names[0]).path : nil
    }

    /// The names for `network`: those in `path` when given (their count must match the classes of the
    /// detection heads), else those beside a Darknet cfg when their count matches; nil otherwise.
    package static func load(path: String?, for network: Network) throws -> [String]? {
        let classes = network.layers.compactMap { layer -> Int? in
            if case .detection(let head) = layer.kind { return head.classes } else { return nil }
        }.max()
        if let path {
            let names = try read(path: path)
            if let classes, names.count < classes {
                throw FoldKitError(
                    .badInput, "the names file has fewer names than the detection heads have classes", file: path,
                    expected: "\(classes)", found: "\(names.count)")
            }
            return names
        }
        guard let classes, let config = network.sourceFiles.first(where: { $0.hasSuffix(".cfg") }), let found = discover(besideConfig: config),
            let names = try? read(path: found), names.count == classes
        else { return nil }
        return names
    }
}
