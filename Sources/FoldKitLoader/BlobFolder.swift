import FoldKitBlobFormat
import FoldKitCore
import FoldKitDetection
import Foundation

/// A blob folder written by `foldkit convert` (Docs/BlobFormat.md), loaded for an app: manifest.json
/// read, every blob's size (and by default SHA-256) checked, the files memory-mapped, each tensor handed
/// out with its shape, layout and role by layer. Needs Foundation only.
///
/// ```swift
/// let blobs = try BlobFolder(url: folder)                  // throws BlobFolderError
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

    /// The folder loaded.
    public let url: URL
    /// The whole manifest.json.
    public let manifest: BlobManifest
    /// Where the blobs came from.
    public let source: BlobSource
    /// The network's layers in order (also those without blobs: pooling, route, ...).
    public let layers: [BlobLayer]
    /// Every blob, in the manifest's order.
    public let tensors: [BlobTensor]

    /// Loads the folder at `url`; throws `BlobFolderError` naming the file and the expected and found
    /// value for the first problem (`BlobFolderReader` lists the checks): no or bad manifest.json, unknown
    /// format or version, an unsafe file name, an unknown dtype or layout, a byte count other than the
    /// shape's, a missing file, a size other than the manifest's byte count, a SHA-256 other than the manifest's.
    public init(url: URL, options: Options = .init()) throws {
        self.url = url
        let manifest = try BlobFolderReader.manifest(in: url)
        self.manifest = manifest
        source = manifest.source
        layers = manifest.layers
        let digest: ((Data) -> String)? = options.verifyChecksums ? { BlobChecksum.sha256Hex($0) } : nil
        tensors = try manifest.tensors.map { entry -> BlobTensor in
            let blob = try BlobFolderReader.load(entry, in: url, memoryMapped: options.memoryMapped, digest: digest)
            if let mismatch = blob.checksumMismatch { throw mismatch }
            return BlobTensor(entry: entry, data: blob.data)
        }
    }

    /// The input the network expects: shape, layout, channel order, pixel scaling, resize rule (nil for a
    /// folder written before manifest version 2).
    public var input: BlobInput? { manifest.input }
    /// The detection heads in network order, each with its layer, output shape and decoding parameters.
    public var heads: [BlobHead] { manifest.heads ?? [] }
    /// Class names, index = class number (nil when the folder has none).
    public var classNames: [String]? { manifest.classNames }
    /// The FoldKit version that wrote the folder (nil before manifest version 2).
    public var toolVersion: String? { manifest.toolVersion }

    /// The boxes an engine's head outputs hold, decoded and non-max-suppressed exactly as `foldkit verify`
    /// does it (`DetectionDecoder`; score = objectness x class probability > `threshold`, per-class greedy
    /// NMS at IoU `nmsIoU`), highest score first, in fractions of the network input.
    ///
    /// `headOutputs[i]` is head i's output tensor (`heads[i].layer`'s output), channel-major float32 of
    /// `heads[i].outputShape` [C, H, W]: element (c, y, x) at (c * H + y) * W + x. An engine that stores
    /// 4-channel slices (MPSImage) converts back to this order first. Throws `BlobFolderError` (.badEntry)
    /// when the number of outputs or an output's size does not match the heads.
    public func detections(headOutputs: [[Float]], threshold: Float = 0.3, nmsIoU: Float = 0.5) throws -> [Detection] {
        guard headOutputs.count == heads.count else {
            throw BlobFolderError(
                .badEntry, "one output per detection head is needed", file: BlobManifest.fileName, expected: "\(heads.count)",
                found: "\(headOutputs.count)")
        }
        guard let input, input.shape.count == 3 else {
            throw BlobFolderError(.badEntry, "the manifest does not describe the network input", file: BlobManifest.fileName)
        }
        var candidates: [Detection] = []
        for (index, head) in heads.enumerated() {
            let shape = head.outputShape
            guard shape.count == 3, headOutputs[index].count == shape.reduce(1, *) else {
                throw BlobFolderError(
                    .badEntry, "output of head \(index) (layer \(head.layer)) has the wrong size", file: BlobManifest.fileName,
                    expected: "\(shape.reduce(1, *)) values (\(shape))", found: "\(headOutputs[index].count)")
            }
            candidates += headOutputs[index].withUnsafeBufferPointer {
                DetectionDecoder.decode(
                    head: head.decoding, headIndex: index, output: $0, channels: shape[0], height: shape[1], width: shape[2],
                    inputWidth: input.shape[2], inputHeight: input.shape[1], threshold: threshold)
            }
        }
        return DetectionDecoder.nonMaxSuppression(candidates, iouThreshold: nmsIoU)
    }

    /// The blob named `name` ("conv0_W").
    public func tensor(named name: String) -> BlobTensor? { tensors.first { $0.name == name } }

    /// The blobs of layer `index`, in the manifest's order.
    public func tensors(ofLayer index: Int) -> [BlobTensor] { tensors.filter { $0.layer == index } }

    /// The blob of layer `index` with `role` (its weights, bias, ...).
    public func tensor(layer index: Int, role: TensorRole) -> BlobTensor? {
        tensors.first { $0.layer == index && $0.role == role }
    }
}
