import Foundation
import FoldKitCore

/// Writes a network's parameters as folded float32 blobs plus `manifest.json` (DESIGN.md "Blob output").
///
/// Conversion streams: for each layer it reads that layer's tensors (file-backed tensors are read only
/// now), folds batch norm (`FoldBatchNorm`), rearranges the weights into the requested layout, writes
/// and checksums them, then drops them, so memory stays bounded by the largest layer.
///
/// Files per layer (prefix `conv<i>` / `fc<i>` / `affine<i>` / `prelu<i>` for Darknet, the sanitised
/// layer name for Keras):
/// - convolution: `<prefix>_W.bin` (4-D in `layout`), `<prefix>_b.bin` ([O]; zeros when the layer has no bias)
/// - fully connected: `<prefix>_W.bin` as a 4-D [O, C, H, W] weight over the input tensor in `layout`
///   (an input vector has H = W = 1), `<prefix>_b.bin`
/// - unfoldable batch norm: `<prefix>_scale.bin`, `<prefix>_shift.bin`;  PReLU: `<prefix>_alpha.bin`
/// The whole folder is written to a temporary sibling and renamed into place at the end.
public enum BlobWriter {
    public struct Options {
        public var layout: WeightLayout
        public init(layout: WeightLayout = .ohwi) { self.layout = layout }
    }

    @discardableResult
    public static func write(network: Network, to destination: URL, options: Options = .init(), progress: ProgressLine? = nil) throws -> BlobManifest {
        try AtomicOutputDirectory.write(to: destination) { folder in
            var sourceSums: [String: String] = [:]
            for file in network.sourceFiles {
                sourceSums[URL(fileURLWithPath: file).lastPathComponent] = try Checksum.sha256Hex(fileAt: file)
            }
            var tensors: [BlobManifest.Tensor] = []
            var usedPrefixes = Set<String>()
            var bytesWritten = 0
            for layer in network.layers {
                let written = try writeLayer(layer, network: network, folder: folder, options: options, usedPrefixes: &usedPrefixes)
                tensors += written
                bytesWritten += written.reduce(0) { $0 + $1.byteCount }
                progress?.update(done: layer.index + 1, total: network.layers.count, bytes: bytesWritten)
            }
            progress?.finish()
            let manifest = BlobManifest(
                format: BlobManifest.formatName, version: BlobManifest.currentVersion,
                source: .init(
                    format: network.format.rawValue,
                    files: network.sourceFiles.map { URL(fileURLWithPath: $0).lastPathComponent },
                    sha256: sourceSums, bnEpsilon: network.epsilonConvention.epsilon,
                    bnEpsilonMode: network.epsilonConvention.placement.rawValue),
                layers: network.layers.map(BlobManifest.LayerEntry.init),
                tensors: tensors)
            try JSONOutput.write(manifest, to: try folder.url(for: "manifest.json"))
            return manifest
        }
    }

    /// The file-name prefix of a layer's blobs.
    public static func prefix(for layer: Layer, format: Network.SourceFormat) -> String {
        let kindPrefix: String
        switch layer.kind {
        case .convolution: kindPrefix = "conv"
        case .fullyConnected: kindPrefix = "fc"
        case .batchNorm, .channelAffine: kindPrefix = "affine"
        case .prelu: kindPrefix = "prelu"
        default: kindPrefix = "layer"
        }
        return format == .darknet ? "\(kindPrefix)\(layer.index)" : SafeFileName.sanitize(layer.name)
    }

    private static func writeLayer(
        _ layer: Layer, network: Network, folder: AtomicOutputDirectory, options: Options, usedPrefixes: inout Set<String>
    ) throws -> [BlobManifest.Tensor] {
        let blobs: [(role: String, suffix: String, values: [Float], shape: [Int], layout: String)]
        do {
            switch try FoldBatchNorm.fold(layer.kind) {
            case .convolution(let c):
                let dims = [c.outputChannels, c.inputChannels / c.groups, c.kernelHeight, c.kernelWidth]
                let w = try WeightLayoutTransform.fromOIHW(try c.weights.floats(), dims: dims, to: options.layout)
                let b = try c.bias?.floats() ?? [Float](repeating: 0, count: c.outputChannels)
                blobs = [("weights", "W", w, WeightLayoutTransform.shape(dims, in: options.layout), options.layout.rawValue),
                         ("bias", "b", b, [c.outputChannels], "C")]
            case .fullyConnected(let f):
                let input = network.shape(of: layer.inputs.first ?? Network.inputIndex)
                let spatial = input.count == f.inputCount ? input : .vector(f.inputCount)
                let dims = [f.outputCount, spatial.channels, spatial.height, spatial.width]
                let w = try WeightLayoutTransform.fromOIHW(try f.weights.floats(), dims: dims, to: options.layout)
                let b = try f.bias?.floats() ?? [Float](repeating: 0, count: f.outputCount)
                blobs = [("weights", "W", w, WeightLayoutTransform.shape(dims, in: options.layout), options.layout.rawValue),
                         ("bias", "b", b, [f.outputCount], "C")]
            case .channelAffine(let a):
                blobs = [("scale", "scale", try a.scale.floats(), a.scale.shape, "C"),
                         ("shift", "shift", try a.shift.floats(), a.shift.shape, "C")]
            case .prelu(let alpha):
                blobs = [("alpha", "alpha", try alpha.floats(), alpha.shape, alpha.shape.count == 1 ? "C" : "CHW")]
            default:
                return []
            }
        } catch let error as FoldKitError {
            throw error.located(file: layer.source.file, layer: layer.label)
        }
        var prefix = prefix(for: layer, format: network.format)
        if usedPrefixes.contains(prefix) { prefix += "_\(layer.index)" }
        usedPrefixes.insert(prefix)
        return try blobs.map { blob in
            let fileName = "\(prefix)_\(blob.suffix).bin"
            let data = blob.values.withUnsafeBufferPointer { Data(buffer: $0) }
            do { try data.write(to: try folder.url(for: fileName)) } catch let error as FoldKitError { throw error } catch {
                throw FoldKitError(.io, "cannot write blob: \(error.localizedDescription)", file: fileName)
            }
            return BlobManifest.Tensor(
                name: "\(prefix)_\(blob.suffix)", layer: layer.index, role: blob.role, file: fileName, shape: blob.shape,
                layout: blob.layout, dtype: "float32", byteCount: data.count, sha256: Checksum.sha256Hex(data))
        }
    }
}
