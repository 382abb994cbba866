import Foundation

/// `manifest.json` of a blob folder (Docs/BlobFormat.md "manifest.json"): the one description of the blob
/// format, written by `foldkit convert` and read by verify's blob reader and by FoldKitLoader.
///
/// ```
/// { "format": "foldkit-blobs", "version": 1,
///   "source": { "format": "darknet", "files": [...], "sha256": {...}, "bnEpsilon": 1e-5, "bnEpsilonMode": "inside" },
///   "layers": [ { "index": 0, "name": "0", "type": "conv", ... } ],
///   "tensors": [ { "name": "conv0_W", "layer": 0, "role": "weights", "file": "conv0_W.bin",
///                  "shape": [16, 3, 3, 3], "layout": "OHWI", "dtype": "float32", "byteCount": 1728, "sha256": "..." } ] }
/// ```
/// Every blob is little-endian float32, `shape` is in the order of `layout`, and `sha256` is the digest of the file.
public struct BlobManifest: Codable, Equatable, Sendable {
    /// The manifest's `format`: "foldkit-blobs".
    public static let formatName = "foldkit-blobs"
    /// The manifest's `version` written and read.
    public static let currentVersion = 1
    /// The name of the manifest file in a blob folder.
    public static let fileName = "manifest.json"

    /// `formatName`.
    public var format: String
    /// `currentVersion`.
    public var version: Int
    /// The model the blobs came from.
    public var source: BlobSource
    /// Every layer of the network, in order (also those without blobs: pooling, route, ...).
    public var layers: [BlobLayer]
    /// Every blob, in the order written.
    public var tensors: [BlobEntry]

    /// A manifest of the current format and version.
    public init(source: BlobSource, layers: [BlobLayer], tensors: [BlobEntry]) {
        format = Self.formatName
        version = Self.currentVersion
        self.source = source
        self.layers = layers
        self.tensors = tensors
    }
}
