import FoldKitBlobFormat
import FoldKitBlobNetwork
import FoldKitCore
import Foundation

/// Writes a folded network's parameters as float32 blobs plus `manifest.json` (Docs/BlobFormat.md).
///
/// It takes the fold pass's result (`FoldBatchNorm.apply(to:)`), whose weights are folded tensors read on
/// demand, and streams it: for each layer it reads that layer's tensors (file-backed ones only now, scaled
/// as they are read), rearranges the weights into the requested layout, writes and checksums them, then
/// drops them. It does no arithmetic on the values. Weights go a few output rows at a time
/// (`Options.chunkBytes`; HWIO a whole tensor at a time), so memory stays bounded by a few chunks (HWIO:
/// the largest layer).
///
/// Files per layer (prefix `conv<i>` / `deconv<i>` / `fc<i>` / `affine<i>` / `prelu<i>` / `layernorm<i>` for
/// Darknet, the sanitised layer name for Keras):
/// - convolution and transposed convolution: `<prefix>_W.bin` (4-D in `layout`, from OIHW
///   [O, I, kh, kw] like a convolution's), `<prefix>_b.bin` ([O]; zeros when the layer has no bias)
/// - fully connected: `<prefix>_W.bin` as a 4-D [O, C, H, W] weight over the input tensor in `layout`
///   (an input vector has H = W = 1), `<prefix>_b.bin`
/// - unfoldable batch norm: `<prefix>_scale.bin`, `<prefix>_shift.bin`;  PReLU: `<prefix>_alpha.bin`
/// - layer normalization: `<prefix>_gamma.bin`, `<prefix>_beta.bin` ([C]; ones and zeros when absent)
/// The whole folder is written to a temporary sibling and renamed into place at the end.
public enum BlobWriter {
    /// How to write: the weight layout and the streaming chunk size.
    public struct Options {
        /// The layout of convolution and fully connected weights (Docs/BlobFormat.md "Layouts").
        public var layout: WeightLayout
        /// Weights are streamed in chunks of whole output rows of about this many bytes (at least one row;
        /// HWIO goes a whole tensor at a time): small enough to stay in cache from the read through the fold
        /// to the write and the hash on other cores. The bytes written do not depend on it.
        public var chunkBytes: Int
        /// `fsync` every blob, the manifest and the folder before the folder is swapped into place, so the
        /// output survives a power loss; by default it is atomic only (Docs/Security.md, "Output safety", item "Durability").
        public var durable: Bool
        /// Called before the folder is put in place when written blobs hold a NaN or an infinity (checked
        /// while hashing, at no extra pass), with those tensors; throwing discards the whole output.
        /// `foldkit convert` refuses there unless `--allow-nonfinite` (`WeightHealthCheck` names the
        /// source element). Nil: such blobs are written.
        public var onNonFiniteBlobs: (([BlobEntry]) throws -> Void)?
        /// The element type of every blob: float32, or float16 (IEEE binary16, rounded to nearest even; a
        /// finite value past 65504 is an error naming its layer, tensor and element, and nothing is written).
        public var dtype: BlobDType
        /// Class names for the manifest's `classNames` (index = class number); nil writes none.
        public var classNames: [String]?
        /// OHWI float32 weights in chunks of 256 KiB, atomic (not durable) output, no class names, unless told otherwise.
        public init(
            layout: WeightLayout = .ohwi, chunkBytes: Int = 256 << 10, durable: Bool = false,
            onNonFiniteBlobs: (([BlobEntry]) throws -> Void)? = nil, dtype: BlobDType = .float32, classNames: [String]? = nil
        ) {
            self.layout = layout
            self.chunkBytes = chunkBytes
            self.durable = durable
            self.onNonFiniteBlobs = onNonFiniteBlobs
            self.dtype = dtype
            self.classNames = classNames
        }
    }

    /// Folds `network` (the network as read) with the fold pass and writes the result, as
    /// `write(folded:original:...)` does; the source files' check (`SourceFileSnapshot`) covers the fold's
    /// reads too. This is what `foldkit convert` runs.
    @discardableResult
    public static func write(network: Network, to destination: URL, options: Options = .init(), progress: ProgressLine? = nil) throws -> BlobManifest
    {
        let snapshot = SourceFileSnapshot(network.sourceFiles)
        return try write(
            folded: FoldBatchNorm.apply(to: network), original: network, snapshot: snapshot, to: destination, options: options,
            progress: progress)
    }

    /// Writes the parameters of `folded` (`FoldBatchNorm.apply(to: original)`) to the folder `destination`
    /// (replaced only when complete) and returns the manifest written; the manifest's layers describe
    /// `original`, the network as read (type, geometry, which layers had a batch norm folded). `progress`
    /// shows layers done and bytes written. Throws `FoldKitError` naming the layer and file when a tensor
    /// cannot be read, `folded` still holds a batch norm or does not match `original`, or the folder cannot
    /// be written.
    @discardableResult
    public static func write(
        folded network: Network, original: Network, to destination: URL, options: Options = .init(), progress: ProgressLine? = nil
    ) throws -> BlobManifest {
        try write(
            folded: network, original: original, snapshot: SourceFileSnapshot(network.sourceFiles), to: destination, options: options,
            progress: progress)
    }

    /// `write(folded:original:...)` with the sources' state recorded in `snapshot` before anything was read.
    private static func write(
        folded network: Network, original: Network, snapshot: SourceFileSnapshot, to destination: URL, options: Options, progress: ProgressLine?
    ) throws -> BlobManifest {
        if options.dtype == .float16 && !HalfConversion.isAvailable {
            throw FoldKitError(.usage, "float16 blobs need Swift's Float16, which this platform (an Intel Mac) lacks", expected: "--dtype float32")
        }
        guard network.layers.count == original.layers.count else {
            throw FoldKitError(
                .usage, "the folded network does not match the original", expected: "\(original.layers.count) layers",
                found: "\(network.layers.count)")
        }
        return try AtomicOutputDirectory.write(to: destination, durable: options.durable) { folder in
            // The source files are checksummed on a thread of their own meanwhile, so the digest of the
            // input (as much work as the digests of all blobs) runs beside the conversion, not inside it.
            let sourceDigests = digests(of: network.sourceFiles)
            let sink = makeSink(for: network, options: options)
            let stream = LayerStream(
                network: network, folder: folder, layout: options.layout, sink: sink, reader: FloatSpanReader(), chunkBytes: options.chunkBytes)
            let tensors: [BlobEntry]
            do {
                tensors = try writeTensors(of: network, original: original, stream: stream, sink: sink, options: options, progress: progress)
            } catch {
                sink.drain()
                _ = try? sourceDigests.result()
                throw error
            }
            let sourceSums = try sourceDigests.result()
            // Blobs and digests are from one version of the sources, or the folder is not renamed into place.
            try snapshot.checkUnchanged()
            progress?.finish()
            let manifest = BlobManifest(
                toolVersion: FoldKitVersion.string,
                source: BlobSource(
                    format: network.format.rawValue,
                    files: network.sourceFiles.map { URL(fileURLWithPath: $0).lastPathComponent },
                    sha256: sourceSums, bnEpsilon: network.epsilonConvention.epsilon,
                    bnEpsilonMode: network.epsilonConvention.placement.rawValue),
                input: BlobInput(original),
                heads: BlobHead.heads(of: original),
                classNames: options.classNames,
                layers: original.layers.map { BlobLayer($0, in: original) },
                tensors: tensors)
            try JSONOutput.write(manifest, to: try folder.url(for: BlobManifest.fileName))
            return manifest
        }
    }

    /// The SHA-256 of each of `files` by file name, computed on a thread of its own.
    private static func digests(of files: [String]) -> BackgroundWork<[String: String]> {
        BackgroundWork { () throws -> [String: String] in
            var sums: [String: String] = [:]
            for file in files {
                sums[URL(fileURLWithPath: file).lastPathComponent] = try Checksum.sha256Hex(fileAt: file)
            }
            return sums
        }
    }

    /// The sink the blobs are written through. Row-local layouts stream the weights in small chunks through
    /// a few more buffers; HWIO rearranges whole tensors, so it keeps two buffers of the largest one.
    private static func makeSink(for network: Network, options: Options) -> BlobFileSink {
        guard WeightLayoutTransform.isRowLocal(options.layout) else {
            let largest = network.layers.map { largestStreamedTensor($0, in: network) }.max() ?? 0
            return BlobFileSink(slots: 2, capacity: largest, dtype: options.dtype)
        }
        return BlobFileSink(slots: chunkSlots, capacity: options.chunkBytes / 4, dtype: options.dtype)
    }

    /// Writes every layer's blobs and returns their entries with their SHA-256; throws (naming the layer)
    /// when a float16 blob holds a value past 65504, and reports non-finite blobs to `options.onNonFiniteBlobs`.
    private static func writeTensors(
        of network: Network, original: Network, stream: LayerStream, sink: BlobFileSink, options: Options, progress: ProgressLine?
    ) throws -> [BlobEntry] {
        var tensors: [BlobEntry] = []
        var usedPrefixes = Set<String>()
        var bytesWritten = 0
        for layer in network.layers {
            let written = try stream.writeLayer(layer, firstKey: tensors.count, usedPrefixes: &usedPrefixes)
            tensors += written
            bytesWritten += written.reduce(0) { $0 + $1.byteCount }
            progress?.update(done: layer.index + 1, total: network.layers.count, bytes: bytesWritten)
        }
        let digests = try sink.finish()
        if let key = sink.halfOverflows.keys.min(), let overflow = sink.halfOverflows[key] {
            let entry = tensors[key]
            let layer = original.layers[entry.layer]
            throw FoldKitError(
                .badInput,
                "\(entry.name) holds a value past float16's largest finite value (element \(overflow.index) in \(entry.layout.rawValue) order)",
                file: layer.source.file, layer: layer.label, expected: "|value| <= 65504 (or --dtype float32)", found: "\(overflow.value)")
        }
        for key in tensors.indices {
            guard let digest = digests[key] else {
                throw FoldKitError(.io, "blob was not written", file: tensors[key].file)
            }
            tensors[key].sha256 = digest
        }
        let nonFinite = sink.keysWithNonFiniteValues
        if let onNonFiniteBlobs = options.onNonFiniteBlobs, !nonFinite.isEmpty {
            try onNonFiniteBlobs(nonFinite.sorted().map { tensors[$0] })
        }
        return tensors
    }

    /// How many chunks may be in flight between folding and the write and hash queues: enough that
    /// neither side waits for the other, few enough that they stay in cache.
    private static let chunkSlots = 8

    /// The element count of the layer's weight tensor that goes through the reusable buffers (0 if none).
    private static func largestStreamedTensor(_ layer: Layer, in network: Network) -> Int {
        network.weightsForm(of: layer)?.dims.reduce(1, *) ?? 0
    }

    /// The file-name prefix of a layer's blobs: the operation's (`conv`, `fc`, ...) and the layer index for
    /// Darknet, the sanitised layer name for Keras.
    static func prefix(for layer: Layer, identity: LayerIdentity) -> String {
        identity == .index ? "\(layer.kind.operation.blobPrefix)\(layer.index)" : SafeFileName.sanitize(layer.name)
    }
}
