import Foundation

/// `manifest.json` of a blob folder (Docs/BlobFormat.md "manifest.json"): the one description of the blob
/// format, written by `foldkit convert` and read by verify's blob reader and by FoldKitLoader.
///
/// ```
/// { "format": "foldkit-blobs", "version": 2, "toolVersion": "1.1.0",
///   "source": { "format": "darknet", "files": [...], "sha256": {...}, "bnEpsilon": 1e-5, "bnEpsilonMode": "inside" },
///   "input": { "shape": [3, 416, 416], "modelLayout": "NCHW", "channelOrder": "rgb", "pixelScale": 0.00392156862745098,
///              "pixelOffset": 0, "resize": "stretch", "definedBy": "..." },
///   "heads": [ { "layer": 16, "outputShape": [255, 13, 13], "decoding": { "kind": "yolo", "classes": 80, ... } } ],
///   "classNames": ["person", ...],
///   "layers": [ { "index": 0, "name": "0", "type": "conv", ... } ],
///   "tensors": [ { "name": "conv0_W", "layer": 0, "role": "weights", "file": "conv0_W.bin",
///                  "shape": [16, 3, 3, 3], "layout": "OHWI", "dtype": "float32", "byteCount": 1728, "sha256": "..." } ] }
/// ```
/// Every blob is little-endian float32 or float16 (`dtype`), `shape` is in the order of `layout`, and
/// `sha256` is the digest of the file. Version 1 manifests (no toolVersion, input, heads or classNames)
/// are still read.
public struct BlobManifest: Codable, Equatable, Sendable {
    /// The manifest's `format`: "foldkit-blobs".
    public static let formatName = "foldkit-blobs"
    /// The manifest's `version` written.
    public static let currentVersion = 2
    /// The versions read: 1 (without toolVersion, input, heads, classNames) and 2.
    public static let readableVersions = 1...2
    /// The name of the manifest file in a blob folder.
    public static let fileName = "manifest.json"

    /// `formatName`.
    public var format: String
    /// `currentVersion`.
    public var version: Int
    /// The version of FoldKit that wrote the folder (version 2 on).
    public var toolVersion: String?
    /// The model the blobs came from.
    public var source: BlobSource
    /// The input the network expects (version 2 on).
    public var input: BlobInput?
    /// The detection heads, in network order (version 2 on; empty for a network without heads).
    public var heads: [BlobHead]?
    /// Class names, index = class number ( `--names` or a `.names` file beside the model; version 2 on,
    /// absent when none was found).
    public var classNames: [String]?
    /// Every layer of the network, in order (also those without blobs: pooling, route, ...).
    public var layers: [BlobLayer]
    /// Every blob, in the order written.
    public var tensors: [BlobEntry]

    /// A manifest of the current format and version.
    public init(
        toolVersion: String? = nil, source: BlobSource, input: BlobInput? = nil, heads: [BlobHead]? = nil, classNames: [String]? = nil,
        layers: [BlobLayer], tensors: [BlobEntry]
    ) {
        format = Self.formatName
        version = Self.currentVersion
        self.toolVersion = toolVersion
        self.source = source
        self.input = input
        self.heads = heads
        self.classNames = classNames
        self.layers = layers
        self.tensors = tensors
    }
}
