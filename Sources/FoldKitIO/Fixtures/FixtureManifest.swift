import FoldKitBlobFormat
import FoldKitCore
import Foundation

/// `manifest.json` of a fixture folder (Docs/Fixtures.md).
public struct FixtureManifest: Codable, Equatable, Sendable {
    /// A Darknet layer index or a Keras layer name; the input tensor has the name "input".
    public enum LayerID: Codable, Equatable, Sendable {
        case index(Int)
        case name(String)

        /// Reads a layer index (a number) or "input".
        public init(from decoder: Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let i = try? container.decode(Int.self) { self = .index(i) } else { self = .name(try container.decode(String.self)) }
        }

        /// Writes a layer index as a number, the input as "input".
        public func encode(to encoder: Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .index(let i): try container.encode(i)
            case .name(let n): try container.encode(n)
            }
        }
    }

    /// One .npy file: the input or one layer's output.
    public struct Tensor: Codable, Equatable, Sendable {
        /// The .npy file name inside the fixture folder.
        public var file: String
        /// The layer whose output it is, or the input.
        public var layer: LayerID
        /// The layer's name.
        public var name: String
        /// The layer's type name ("conv", "maxpool", ...).
        public var type: String
        /// The array's shape in the file (in the order of `layout`).
        public var shape: [Int]
        /// How the array is laid out (nchw, nhwc or sliced): the pack's layout, or nhwc for a darknet head
        /// buffer kept in darknet's own order. An unknown name fails decoding.
        public var layout: FixtureLayout
        /// The element type: float32 (FoldKitBlobFormat's `BlobDType`; fixture packs hold float32 only).
        public var dtype: BlobDType
        /// SHA-256 (hex) of the .npy file.
        public var sha256: String
    }

    /// "foldkit-fixtures".
    public var format: String
    /// The manifest version: 2 (1 before `layers` and `onnx` existed; a version 1 pack holds every layer).
    public var version: Int
    /// The model files' names.
    public var source: [String]
    /// The batch-norm epsilon of the network.
    public var bnEpsilon: Double
    /// "inside" or "outside" (where epsilon goes).
    public var bnEpsilonMode: String
    /// How the input was made ("seed 0" or a file path).
    public var input: String
    /// Which network produced the outputs and in what precision.
    public var computedBy: String
    /// The layout of the pack (nchw, nhwc or sliced). An unknown name fails decoding.
    public var layout: FixtureLayout
    /// The input first, then each written layer's output in network order.
    public var tensors: [Tensor]
    /// The `.npz` pack holding the same arrays (member = file name without `.npy`), when written.
    public var pack: Pack?
    /// Which layers' outputs the pack holds (version 2; absent in version 1, which holds every layer).
    public var layers: Layers?
    /// The onnx TensorProto files (`--onnx`; version 2): one per tensor, in the order of `tensors`.
    public var onnx: [ONNXTensor]?

    /// The layers a pack holds: `foldkit fixtures --layers`.
    public struct Layers: Codable, Equatable, Sendable {
        /// "all", "outputs" or "list" (`FixtureLayerChoice.name`).
        public var choice: String
        /// The layers written, in network order: Darknet section indices or Keras layer names.
        public var written: [LayerID]
    }

    /// One `test_data_set_0/*.pb` file (Docs/Fixtures.md "ONNX test data").
    public struct ONNXTensor: Codable, Equatable, Sendable {
        /// The pack-relative path: `test_data_set_0/input_0.pb` or `test_data_set_0/output_<k>.pb`.
        public var file: String
        /// The `.npy` file whose array it holds (same dims, same element order).
        public var npy: String
        /// That tensor's layer (as in `Tensor.layer`).
        public var layer: LayerID
        /// The TensorProto's `name`: the tensor's name.
        public var name: String
        /// SHA-256 (hex) of the .pb file.
        public var sha256: String
    }

    /// fixtures.npz holding every tensor, when asked for.
    public struct Pack: Codable, Equatable, Sendable {
        /// "fixtures.npz".
        public var file: String
        /// SHA-256 (hex) of the archive.
        public var sha256: String
    }
}
