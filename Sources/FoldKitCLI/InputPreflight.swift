import FoldKit
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Checks every path a command was given before it reads any of them (Docs/CLI.md "Conventions"): a
/// missing `--image`, `--input`, `--names` or `--blobs` folder is reported at once, not after a large
/// model has been read and run. Each error names the option and the path and exits 1.
struct InputPreflight {
    private var checks: [(option: String, path: String, kind: Kind)] = []

    enum Kind {
        /// A file the command reads.
        case file
        /// A folder the command reads (`--blobs`, `fixtures --check`); `manifest.json` must be in it.
        case folderWithManifest
        /// A folder the command reads (`verify --engine-outputs`).
        case folder
        /// A file the command writes: its folder must exist.
        case output
    }

    /// Adds `path` (nothing when nil) as an `option`'s path of `kind`.
    mutating func add(_ option: String, _ path: String?, _ kind: Kind = .file) {
        if let path { checks.append((option, path, kind)) }
    }

    /// Adds the model files (existence and readability; the reader checks the contents).
    mutating func addModel(_ files: [String]) {
        for file in files { add("model file", file) }
    }

    /// Throws a `FoldKitError` naming the first path that is missing, of the wrong kind or unreadable.
    func check() throws {
        for (option, path, kind) in checks {
            var isFolder: ObjCBool = false
            switch kind {
            case .file:
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                    throw FoldKitError(.io, "\(option): file not found", file: path)
                }
                guard !isFolder.boolValue else { throw FoldKitError(.io, "\(option): is a folder, not a file", file: path) }
                guard access(path, R_OK) == 0 else { throw FoldKitError(.io, "\(option): file cannot be read (permission denied)", file: path) }
            case .folderWithManifest:
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else {
                    throw FoldKitError(.io, "\(option): folder not found", file: path)
                }
                let manifest = URL(fileURLWithPath: path).appendingPathComponent("manifest.json").path
                guard FileManager.default.fileExists(atPath: manifest) else {
                    throw FoldKitError(.io, "\(option): no manifest.json in the folder", file: manifest)
                }
                guard access(manifest, R_OK) == 0 else {
                    throw FoldKitError(.io, "\(option): manifest.json cannot be read (permission denied)", file: manifest)
                }
            case .folder:
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue else {
                    throw FoldKitError(.io, "\(option): folder not found", file: path)
                }
            case .output:
                let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
                guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
                    throw FoldKitError(
                        .io, "\(option): the folder to write into does not exist", file: path, expected: "an existing folder \(folder)")
                }
            }
        }
    }
}
