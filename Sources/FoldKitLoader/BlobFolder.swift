import Foundation

/// A blob folder written by `foldkit convert` (Docs/BlobFormat.md), loaded for an app: manifest.json
/// read, every blob's size (and by default SHA-256) checked, the files memory-mapped, each tensor handed
/// out with its shape, layout and role by layer. Needs Foundation only.
///
/// ```swift
/// let blobs = try BlobFolder(url: folder)                  // throws BlobLoaderError
/// for layer in blobs.layers where layer.type == "conv" {
///     let weights = blobs.tensor(layer: layer.index, role: .weights)
///     weights?.withUnsafeFloats { upload($0, shape: weights!.shape, layout: weights!.layout) }
/// }
/// ```
public struct BlobFolder: Sendable {
    /// How to load.
    public struct Options: Sendable {
        /// Compare each file's SHA-256 with the manifest's (reads every byte once). On by default.
        public var verifyChecksums: Bool
        /// Map the files (`Data.ReadingOptions.alwaysMapped`) rather than read them into memory.
        public var memoryMapped: Bool

        /// Checks every SHA-256 and maps the files unless told otherwise.
        public init(verifyChecksums: Bool = true, memoryMapped: Bool = true) {
            self.verifyChecksums = verifyChecksums
            self.memoryMapped = memoryMapped
        }
    }

    /// The manifest's format name and the version this loader reads.
    public static let formatName = "foldkit-blobs"
    /// The manifest version this loader reads.
    public static let supportedVersion = 1

    /// The folder loaded.
    public let url: URL
    /// Where the blobs came from.
    public let source: BlobSource
    /// The network's layers in order (also those without blobs: pooling, route, ...).
    public let layers: [BlobLayer]
    /// Every blob, in the manifest's order.
    public let tensors: [BlobTensor]

    /// Loads the folder at `url`; throws `BlobLoaderError` naming the file and the expected and found
    /// value for the first problem: no or bad manifest.json, unknown format or version, an unsafe file
    /// name, an unknown dtype, a missing file, a size other than the manifest's byte count and
    /// shape x 4, a SHA-256 other than the manifest's.
    public init(url: URL, options: Options = .init()) throws {
        self.url = url
        let manifestName = "manifest.json"
        let manifestData: Data
        do { manifestData = try Data(contentsOf: url.appendingPathComponent(manifestName)) } catch {
            throw BlobLoaderError(.missingManifest, "cannot read the manifest in \(url.path): \(error.localizedDescription)", file: manifestName)
        }
        let manifest: ManifestFile
        do { manifest = try JSONDecoder().decode(ManifestFile.self, from: manifestData) } catch {
            throw BlobLoaderError(.badManifest, "not a FoldKit blob manifest: \(error)", file: manifestName)
        }
        guard manifest.format == Self.formatName, manifest.version == Self.supportedVersion else {
            throw BlobLoaderError(.badManifest, "unknown manifest format", file: manifestName,
                                  expected: "\(Self.formatName) v\(Self.supportedVersion)", found: "\(manifest.format) v\(manifest.version)")
        }
        source = manifest.source
        layers = manifest.layers
        tensors = try manifest.tensors.map { try Self.load($0, in: url, options: options) }
    }

    /// The blob named `name` ("conv0_W").
    public func tensor(named name: String) -> BlobTensor? { tensors.first { $0.name == name } }

    /// The blobs of layer `index`, in the manifest's order.
    public func tensors(ofLayer index: Int) -> [BlobTensor] { tensors.filter { $0.layer == index } }

    /// The blob of layer `index` with `role` (its weights, bias, ...).
    public func tensor(layer index: Int, role: BlobTensorRole) -> BlobTensor? {
        tensors.first { $0.layer == index && $0.role == role }
    }

    /// Checks one manifest entry against its file and maps it.
    private static func load(_ entry: ManifestFile.Tensor, in folder: URL, options: Options) throws -> BlobTensor {
        guard !entry.file.isEmpty, !entry.file.contains("/"), !entry.file.contains("\\"), entry.file != ".", entry.file != ".." else {
            throw BlobLoaderError(.badEntry, "file name leaves the blob folder", file: entry.file, expected: "a plain file name")
        }
        guard entry.dtype == "float32" else {
            throw BlobLoaderError(.badEntry, "unknown dtype of \(entry.name)", file: entry.file, expected: "float32", found: entry.dtype)
        }
        let elements = entry.shape.reduce(1, *)
        guard entry.shape.allSatisfy({ $0 >= 0 }), entry.byteCount == elements * 4 else {
            throw BlobLoaderError(.badEntry, "byte count of \(entry.name) is not its shape \(entry.shape) x 4", file: entry.file,
                                  expected: "\(elements * 4) bytes", found: "\(entry.byteCount) bytes")
        }
        let fileURL = folder.appendingPathComponent(entry.file)
        guard FileManager.default.fileExists(atPath: fileURL.path) else {
            throw BlobLoaderError(.missingFile, "blob file of \(entry.name) is missing", file: entry.file)
        }
        let data: Data
        do { data = try Data(contentsOf: fileURL, options: options.memoryMapped ? .alwaysMapped : []) } catch {
            throw BlobLoaderError(.missingFile, "cannot read the blob file of \(entry.name): \(error.localizedDescription)", file: entry.file)
        }
        guard data.count == entry.byteCount else {
            throw BlobLoaderError(.sizeMismatch, "size of \(entry.name) differs from the manifest", file: entry.file,
                                  expected: "\(entry.byteCount) bytes", found: "\(data.count) bytes")
        }
        if options.verifyChecksums {
            let digest = BlobChecksum.sha256Hex(data)
            guard digest == entry.sha256.lowercased() else {
                throw BlobLoaderError(.checksumMismatch, "SHA-256 of \(entry.name) differs from the manifest", file: entry.file,
                                      expected: entry.sha256, found: digest)
            }
        }
        return BlobTensor(name: entry.name, layer: entry.layer, role: entry.role, file: entry.file, shape: entry.shape,
                          layout: entry.layout, sha256: entry.sha256, data: data)
    }
}
