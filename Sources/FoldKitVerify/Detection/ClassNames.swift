import FoldKitCore
import FoldKitIO
import Foundation

/// Class names for detections: one name a line (Darknet's `.names` files; blank trailing lines ignored).
package enum ClassNames {
    /// Names read from a file, with the file's digest (for the report's `filesRead`).
    package struct File {
        /// One per class, in class order.
        package var names: [String]
        /// The file's path, size and SHA-256, of the bytes the names were read from.
        package var digest: FileDigest
    }

    /// The names in `path`, one a line.
    package static func read(path: String) throws -> [String] {
        try readFile(path: path).names
    }

    /// The names in `path`, one a line, and the file's digest.
    package static func readFile(path: String) throws -> File {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw FoldKitError(.io, "cannot read the class names file", file: path)
        }
        var names = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).map {
            $0.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        while names.last?.isEmpty == true { names.removeLast() }
        return File(names: names, digest: FileDigest(role: .classNames, path: path, data: data))
    }

    /// The names file that goes with a Darknet model, found beside its cfg: the `.names` file with the
    /// cfg's base name (`yolov3.cfg` -> `yolov3.names`) if there is one, else the only `.names` file of the
    /// cfg's folder; nil when there is none or several without that base name (then pass `--names`).
    /// The path keeps the cfg path's form (relative stays relative), as reports name it.
    package static func discover(besideConfig configPath: String) -> String? {
        let config = configPath as NSString
        let folder = config.deletingLastPathComponent as NSString
        let sameName = config.deletingPathExtension + ".names"
        if FileManager.default.fileExists(atPath: sameName) { return sameName }
        let files = (try? FileManager.default.contentsOfDirectory(atPath: folder.length == 0 ? "." : folder as String)) ?? []
        let names = files.filter { $0.hasSuffix(".names") }.sorted()
        return names.count == 1 ? folder.appendingPathComponent(names[0]) : nil
    }

    /// The names for `network`: those in `path` when given (their count must match the classes of the
    /// detection heads), else those beside a Darknet cfg when their count matches; nil otherwise.
    package static func load(path: String?, for network: Network) throws -> [String]? {
        try loadFile(path: path, for: network)?.names
    }

    /// `load(path:for:)` with the file the names came from.
    package static func loadFile(path: String?, for network: Network) throws -> File? {
        let classes = network.layers.compactMap { layer -> Int? in
            if case .detection(let head) = layer.kind { return head.classes } else { return nil }
        }.max()
        if let path {
            let file = try readFile(path: path)
            if let classes, file.names.count < classes {
                throw FoldKitError(
                    .badInput, "the names file has fewer names than the detection heads have classes", file: path,
                    expected: "\(classes)", found: "\(file.names.count)")
            }
            return file
        }
        guard let classes, let config = network.sourceFiles.first(where: { $0.hasSuffix(".cfg") }), let found = discover(besideConfig: config),
            let file = try? readFile(path: found), file.names.count == classes
        else { return nil }
        return file
    }
}
