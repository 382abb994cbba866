import FoldKitBlobFormat
import FoldKitBlobNetwork
import FoldKitCore
import Foundation

/// Re-reads a blob folder written by `BlobWriter` so that `verify --blobs` checks what ships.
///
/// Every blob in the manifest goes through the format's reader (`BlobFolderReader`: plain file name, dtype
/// and layout known, byte count = shape x 4, the file there with that size, its SHA-256 the manifest's), and
/// every problem is collected rather than the first thrown. The folded network is then rebuilt from the files
/// (weights moved back from the manifest's layout to OIHW) on top of the model's own structure.
public enum BlobReader {
    /// One thing wrong with one blob. In JSON: `tensor`, `file`, `problem` (the sentence) and `missing`.
    public struct Problem: Codable, Equatable, Sendable {
        /// What is wrong, as the code tells problems apart (the sentence is for people).
        public enum Kind: Sendable {
            /// The manifest's file name leaves the blob folder.
            case unsafeFileName
            /// The manifest's entry is inconsistent (unknown dtype or layout, byte count not the shape's).
            case badEntry
            /// The file does not exist.
            case missingFile
            /// The file's size is not shape x 4 bytes or not the recorded byte count.
            case sizeMismatch
            /// The file's SHA-256 is not the manifest's.
            case checksumMismatch
            /// A source file's SHA-256 is not the one the blobs were made from.
            case sourceChanged
            /// A float16 blob's values are not the verified float32 fold rounded to float16 (`HalfBlobCheck`).
            case foldMismatch
        }

        /// The blob's name in the manifest ("conv0_W"), or "(source)" for a model file.
        public var tensor: String
        /// The blob's (or model file's) file name.
        public var file: String
        /// The sentence saying what is wrong.
        public var problem: String
        /// What is wrong, for code.
        public var kind: Kind
        /// A missing file (exit code 1) rather than a changed one (exit code 2).
        public var missing: Bool { kind == .missingFile }
        /// The blobs cannot be turned back into a network (a file is missing or has the wrong size).
        public var preventsRebuild: Bool { kind == .missingFile || kind == .sizeMismatch || kind == .badEntry || kind == .unsafeFileName }

        /// A problem with blob `tensor` in `file`.
        public init(tensor: String, file: String, problem: String, kind: Kind) {
            self.tensor = tensor
            self.file = file
            self.problem = problem
            self.kind = kind
        }

        private enum CodingKeys: String, CodingKey { case tensor, file, problem, missing }

        /// Writes `tensor`, `file`, `problem` and `missing` (the kind is not written).
        public func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(tensor, forKey: .tensor)
            try container.encode(file, forKey: .file)
            try container.encode(problem, forKey: .problem)
            try container.encode(missing, forKey: .missing)
        }

        /// The JSON carries only `missing`; a problem that is not a missing file reads back as a
        /// checksum mismatch (reports are written, not read, by FoldKit).
        public init(from decoder: Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            tensor = try container.decode(String.self, forKey: .tensor)
            file = try container.decode(String.self, forKey: .file)
            problem = try container.decode(String.self, forKey: .problem)
            kind = try container.decode(Bool.self, forKey: .missing) ? .missingFile : .checksumMismatch
        }
    }

    /// What `read(folder:model:)` found: the network rebuilt from the files, the manifest and every problem.
    public struct Result {
        /// The folded network built from the blob files (nil when sizes made that impossible).
        public var network: Network?
        /// The folder's manifest.json.
        public var manifest: BlobManifest
        /// Every problem with a blob or a source file; empty when the folder is intact.
        public var problems: [Problem]
        /// The folder's manifest.json: path, size and SHA-256 (it holds every blob's SHA-256, each checked).
        public var manifestDigest: FileDigest
        /// SHA-256 of the model files the manifest names, by path, as computed for the check against the
        /// manifest (a report can name them without hashing the files again).
        public var sourceDigests: [String: String]
    }

    /// Reads the blob folder `folder` written for `model` (the network as loaded, unfolded): checks every
    /// blob's file name, size and SHA-256 and the model files' SHA-256, and rebuilds the folded network from the
    /// blob values when every blob has its size. Throws `FoldKitError` when manifest.json is missing or not
    /// a FoldKit blob manifest; other problems are reported in `Result.problems`.
    public static func read(folder: URL, model: Network) throws -> Result {
        let manifest: BlobManifest
        do { manifest = try BlobFolderReader.manifest(in: folder) } catch let error as BlobFolderError {
            throw FoldKitError(
                error.kind == .missingManifest ? .io : .badInput, error.message,
                file: folder.appendingPathComponent(error.file).path, expected: error.expected, found: error.found)
        }
        let manifestDigest = try FileDigest.of(folder.appendingPathComponent("manifest.json").path, role: .blobManifest)
        var problems: [Problem] = []
        var values: [String: [Float]] = [:]
        for entry in manifest.tensors {
            do {
                let blob = try BlobFolderReader.load(entry, in: folder, memoryMapped: false, digest: { Checksum.sha256Hex($0) })
                if let mismatch = blob.checksumMismatch { problems.append(Problem(entry, mismatch)) }
                values[entry.name] = BlobValues.floats(blob.data, dtype: entry.dtype)
            } catch let error as BlobFolderError {
                problems.append(Problem(entry, error))
            }
        }
        var sourceDigests: [String: String] = [:]
        for (name, digest) in manifest.source.sha256 {
            if let file = model.sourceFiles.first(where: { URL(fileURLWithPath: $0).lastPathComponent == name }),
                let actual = try? Checksum.sha256Hex(fileAt: file)
            {
                sourceDigests[file] = actual
                guard actual != digest else { continue }
                problems.append(
                    Problem(
                        tensor: "(source)", file: name, problem: "the blobs were made from a different \(name) (sha256 differs)", kind: .sourceChanged
                    ))
            }
        }
        let network = problems.contains(where: \.preventsRebuild) ? nil : try BlobNetwork.rebuild(model: model, manifest: manifest, values: values)
        return Result(network: network, manifest: manifest, problems: problems, manifestDigest: manifestDigest, sourceDigests: sourceDigests)
    }
}

extension BlobReader.Problem {
    /// The problem `error` (from `BlobFolderReader`) with blob `entry`: its sentence is the error's message with
    /// the expected and found values.
    init(_ entry: BlobEntry, _ error: BlobFolderError) {
        let kind: Kind
        switch error.kind {
        case .unsafeFileName: kind = .unsafeFileName
        case .missingFile: kind = .missingFile
        case .sizeMismatch: kind = .sizeMismatch
        case .checksumMismatch: kind = .checksumMismatch
        case .badEntry, .badManifest, .missingManifest: kind = .badEntry
        }
        self.init(tensor: entry.name, file: entry.file, problem: error.sentence, kind: kind)
    }
}
