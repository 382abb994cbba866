import FoldKit
import Foundation

/// The model files' digests for a `--json` document's `filesRead`, hashed on a thread of their own while
/// the command works (`inspect`, `fixtures`), or taken from digests already computed (`convert`: the
/// manifest's `source.sha256`), so naming them costs no extra time on the command's own thread.
final class ModelDigests: Sendable {
    private let work: BackgroundWork<[FileDigest]>

    /// Starts hashing every file in `paths` that exists (reading the first 1 MiB at a time), except those
    /// whose SHA-256 `known` gives by file name.
    init(_ paths: [String], known: [String: String] = [:]) {
        let files = paths.filter { FileManager.default.fileExists(atPath: $0) }
        work = BackgroundWork {
            try files.map { path in
                guard let sha256 = known[URL(fileURLWithPath: path).lastPathComponent] else { return try FileDigest.of(path, role: .model) }
                let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
                return FileDigest(role: .model, path: path, bytes: size ?? 0, sha256: sha256)
            }
        }
    }

    /// The digests, in the order of the paths (waits for the hashing to finish).
    func result() throws -> [FileDigest] { try work.result() }
}
