import FoldKitCore

/// `manifest.json` of a blob folder (Docs/BlobFormat.md "manifest.json").
///
/// ```
/// { "format": "foldkit-blobs", "version": 1,
///   "source": { "files": [...], "sha256": {...}, "bnEpsilon": 1e-5, "bnEpsilonMode": "inside" },
///   "layers": [ { "index": 0, "name": "0", "type": "conv", ... } ],
///   "tensors": [ { "name": "conv0_W", "layer": 0, "role": "weights", "file": "conv0_W.bin",
///                  "shape": [16, 3, 3, 3], "layout": "OHWI", "dtype": "float32", "sha256": "..." } ] }
/// ```
/// Every blob is little-endian float32, `shape` is in the order of `layout`, and `sha256` is the digest of the file.
public struct BlobManifest: Codable, Equatable {
    /// The manifest's `format`: "foldkit-blobs".
    public static let formatName = "foldkit-blobs"
    /// The manifest's `version` written and read.
    public static let currentVersion = 1

    /// Where the blobs came from.
    public struct Source: Codable, Equatable {
        /// "darknet" or "keras".
        public var format: String
        /// The model files' names.
        public var files: [String]
        /// SHA-256 (hex) of each model file, by name.
        public var sha256: [String: String]
        /// The batch-norm epsilon folded with.
        public var bnEpsilon: Double
        /// "inside" (gamma / sqrt(var + eps)) or "outside" (gamma / (sqrt(var) + eps)).
        public var bnEpsilonMode: String
    }

    /// One written tensor.
    public struct Tensor: Codable, Equatable {
        /// The blob's name: the file name without ".bin" ("conv0_W").
        public var name: String
        /// The layer index (Darknet section index after [net]; position in the Keras graph).
        public var layer: Int
        /// weights, bias, scale, shift or alpha (`TensorRole`'s raw value in the JSON).
        public var role: TensorRole
        /// The file name inside the blob folder.
        public var file: String
        /// The shape in the order of `layout` (the padded shape for the sliced layouts).
        public var shape: [Int]
        /// OHWI, OIHW, HWIO, sliced or sliced-depthwise for 4-D weights (Docs/BlobFormat.md "Layouts"); "C" for
        /// vectors; "CHW" for a per-element PReLU alpha.
        public var layout: String
        /// "float32" (little-endian).
        public var dtype: String
        /// The file's size: shape product x 4.
        public var byteCount: Int
        /// SHA-256 (hex) of the file.
        public var sha256: String
    }

    /// What an engine needs to rebuild a layer around the blobs.
    public struct LayerEntry: Codable, Equatable {
        /// The layer's index.
        public var index: Int
        /// The layer's name (the Darknet index as text, or the Keras layer name).
        public var name: String
        /// "conv", "conv(depthwise)", "conv(groups=N)", "connected", "maxpool", "route", ...
        public var type: String
        /// Indices of the layers read; -1 is the network input.
        public var inputs: [Int]
        /// Output shape [C, H, W].
        public var outputShape: [Int]
        /// [kh, kw] for convolutions and pooling.
        public var kernel: [Int]?
        /// [stride y, stride x].
        public var stride: [Int]?
        /// [dilation y, dilation x].
        public var dilation: [Int]?
        /// [top, left, bottom, right]
        public var padding: [Int]?
        /// Convolution groups.
        public var groups: Int?
        /// The activation after the layer ("leaky", "relu", "linear", ...).
        public var activation: String?
        /// Batch norm was folded into this layer's weights and bias.
        public var foldedBatchNorm: Bool?
    }

    /// `formatName`.
    public var format: String
    /// `currentVersion`.
    public var version: Int
    /// The model the blobs came from.
    public var source: Source
    /// Every layer of the network, in order.
    public var layers: [LayerEntry]
    /// Every blob, in the order written.
    public var tensors: [Tensor]
}

extension BlobManifest.LayerEntry {
    /// Describes `layer` (before folding, so `foldedBatchNorm` can be told).
    public init(_ layer: Layer) {
        index = layer.index
        name = layer.name
        type = layer.kind.typeName
        inputs = layer.inputs
        outputShape = [layer.outputShape.channels, layer.outputShape.height, layer.outputShape.width]
        switch layer.kind {
        case .convolution(let c):
            kernel = [c.kernelHeight, c.kernelWidth]
            stride = [c.strideY, c.strideX]
            dilation = [c.dilationY, c.dilationX]
            padding = [c.padding.top, c.padding.left, c.padding.bottom, c.padding.right]
            groups = c.groups
            activation = c.activation.name
            foldedBatchNorm = c.batchNorm != nil
        case .fullyConnected(let f):
            activation = f.activation.name
            foldedBatchNorm = f.batchNorm != nil
        case .pooling(let p):
            kernel = [p.kernelHeight, p.kernelWidth]
            stride = [p.strideY, p.strideX]
            padding = [p.padding.top, p.padding.left, p.padding.bottom, p.padding.right]
        case .sum(let s):
            activation = s.activation.name
        case .activation(let a):
            activation = a.name
        default:
            break
        }
    }
}
