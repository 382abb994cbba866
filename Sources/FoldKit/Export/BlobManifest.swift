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
    public static let formatName = "foldkit-blobs"
    public static let currentVersion = 1

    public struct Source: Codable, Equatable {
        public var format: String
        public var files: [String]
        public var sha256: [String: String]
        public var bnEpsilon: Double
        public var bnEpsilonMode: String
    }

    /// One written tensor.
    public struct Tensor: Codable, Equatable {
        public var name: String
        /// The layer index (Darknet section index after [net]; position in the Keras graph).
        public var layer: Int
        /// weights, bias, scale, shift or alpha (`TensorRole`'s raw value in the JSON).
        public var role: TensorRole
        public var file: String
        public var shape: [Int]
        /// OHWI, OIHW, HWIO for 4-D weights; "C" for vectors.
        public var layout: String
        public var dtype: String
        public var byteCount: Int
        public var sha256: String
    }

    /// What an engine needs to rebuild a layer around the blobs.
    public struct LayerEntry: Codable, Equatable {
        public var index: Int
        public var name: String
        public var type: String
        public var inputs: [Int]
        /// Output shape [C, H, W].
        public var outputShape: [Int]
        public var kernel: [Int]?
        public var stride: [Int]?
        public var dilation: [Int]?
        /// [top, left, bottom, right]
        public var padding: [Int]?
        public var groups: Int?
        public var activation: String?
        /// Batch norm was folded into this layer's weights and bias.
        public var foldedBatchNorm: Bool?
    }

    public var format: String
    public var version: Int
    public var source: Source
    public var layers: [LayerEntry]
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
