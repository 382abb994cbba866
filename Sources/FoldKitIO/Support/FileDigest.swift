import FoldKitBlobFormat
import FoldKitCore
import Foundation

/// One file a command read, named in its report so that an audit can prove what it covered: the path as
/// given, what the file was to the command, its size and its SHA-256 (lowercase hex, as the manifests
/// record digests). Reports list them as `filesRead` (Docs/CLI.md "JSON documents", Docs/Verify.md).
public struct FileDigest: Codable, Equatable, Sendable {
    /// What the file was to the command.
    public enum Role: String, Codable, Equatable, Sendable {
        /// A model file (.cfg, .weights, .h5, .keras, config.json).
        case model
        /// The `--input` .npy array.
        case input
        /// The `--image` picture.
        case image
        /// A class names file (`--names`, or the .names file found beside a Darknet cfg).
        case classNames = "class names"
        /// `manifest.json` of the `--blobs` folder (it holds every blob's SHA-256).
        case blobManifest = "blob manifest"
        /// `manifest.json` of a fixture pack checked with `fixtures --check` (it holds every .npy's SHA-256).
        case fixtureManifest = "fixture manifest"
        /// An output an engine computed, judged by `verify --engine-outputs`.
        case engineOutput = "engine output"
    }

    /// What the file was to the command.
    public var role: Role
    /// The path as given on the command line (or as found, for a discovered .names file).
    public var path: String
    /// The file's size in bytes.
    public var bytes: Int
    /// SHA-256 of the file's bytes, lowercase hex.
    public var sha256: String
    /// How its values were taken when that is not as stored, e.g. "float64 cast to float32 (round to
    /// nearest), largest relative rounding 5.96e-08"; nil when taken as stored.
    public var note: String?

    /// A digest of `path` as recorded elsewhere (`sha256` already computed).
    public init(role: Role, path: String, bytes: Int, sha256: String, note: String? = nil) {
        self.role = role
        self.path = path
        self.bytes = bytes
        self.sha256 = sha256
        self.note = note
    }

    /// The digest of bytes already read from `path` (no second read).
    public init(role: Role, path: String, data: Data, note: String? = nil) {
        self.init(role: role, path: path, bytes: data.count, sha256: Checksum.sha256Hex(data), note: note)
    }

    /// Reads and hashes the file at `path` (1 MiB at a time). Throws `FoldKitError` naming the file when it
    /// cannot be read.
    public static func of(_ path: String, role: Role, note: String? = nil) throws -> FileDigest {
        var bytes = 0
        let hasher = PlatformSHA256()
        try RawFile.forEachChunk(of: path) { chunk in
            bytes += chunk.count
            hasher.update(chunk)
        }
        return FileDigest(role: role, path: path, bytes: bytes, sha256: Checksum.hex(hasher.finalize()), note: note)
    }

    /// One line for a text report: `role: path (N bytes) sha256 HEX`, then `; note` when there is one.
    public var text: String {
        "\(role.rawValue): \(path) (\(bytes) bytes) sha256 \(sha256)" + (note.map { "; \($0)" } ?? "")
    }
}
