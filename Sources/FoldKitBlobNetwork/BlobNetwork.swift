import FoldKitBlobFormat
import FoldKitCore
import FoldKitDetection
import Foundation

/// A runnable network rebuilt from a blob folder alone (no .cfg, .weights or Keras file): the layers from
/// manifest.json's `layers` and `heads`, every parameter from the blobs (float32 or float16), checked as
/// `BlobFolderReader` checks them. This is what an engine does with the folder; FoldKit's CPU executor
/// can then run it (the YoloFastest example does, standing in for an app's Metal engine).
///
/// Rebuilt layer types (manifest `type`): conv (all groups), connected, maxpool, avgpool, global_avgpool,
/// global_maxpool, route (with `routeGroups`), shortcut, multiply (Darknet [scale_channels]), upsample (nearest, `stride`,
/// `scale`), the activation layers, channel windows (`channelOffset`), layers marked `passThrough`, and the
/// detection heads of `heads`. Any other type is refused naming the layer; the source model is then needed
/// (`foldkit verify MODEL --blobs DIR`). Every layer's output shape is recomputed and must equal the
/// manifest's `outputShape`.
public enum BlobNetwork {
    /// The network of the blob folder at `folder`. Throws `FoldKitError` naming manifest.json or the blob file
    /// and the layer for a missing, damaged or unsupported part.
    public static func read(folder: URL) throws -> Network {
        let manifest: BlobManifest
        do { manifest = try BlobFolderReader.manifest(in: folder) } catch let error as BlobFolderError {
            throw FoldKitError(
                .badInput, error.message, file: folder.appendingPathComponent(error.file).path, expected: error.expected, found: error.found)
        }
        guard let input = manifest.input, input.shape.count == 3 else {
            throw FoldKitError(
                .badInput, "the manifest does not describe the network input (written by FoldKit before manifest version 2)",
                file: folder.appendingPathComponent(BlobManifest.fileName).path, expected: "version 2 with input",
                found: "version \(manifest.version)")
        }
        let skeleton = try network(manifest: manifest, manifestPath: folder.appendingPathComponent(BlobManifest.fileName).path, input: input)
        var values: [String: [Float]] = [:]
        for entry in manifest.tensors {
            let blob: BlobFolderReader.LoadedBlob
            do { blob = try BlobFolderReader.load(entry, in: folder, memoryMapped: true, digest: { PlatformSHA256.hex(of: $0) }) } catch let error
                as BlobFolderError
            {
                throw FoldKitError(
                    .badInput, error.message, file: folder.appendingPathComponent(entry.file).path, expected: error.expected, found: error.found)
            }
            if let mismatch = blob.checksumMismatch {
                throw FoldKitError(
                    .badInput, mismatch.message, file: folder.appendingPathComponent(entry.file).path, expected: mismatch.expected,
                    found: mismatch.found)
            }
            values[entry.name] = BlobValues.floats(blob.data, dtype: entry.dtype)
        }
        let network = try rebuild(model: skeleton, manifest: manifest, values: values)
        for layer in network.layers {
            let inferred: ActivationShape
            do { inferred = try layer.kind.outputShape(for: layer.inputs.map(network.shape(of:))) } catch let error as FoldKitError {
                throw error.located(file: skeleton.sourceFiles[0], layer: layer.label)
            }
            guard inferred == layer.outputShape else {
                throw FoldKitError(
                    .badInput, "the layer's output shape does not follow from its parameters", file: skeleton.sourceFiles[0], layer: layer.label,
                    expected: "\(inferred)", found: "\(layer.outputShape)")
            }
        }
        return network
    }

    /// The layers of `manifest` with placeholder parameters of the right shapes (filled from the blobs by
    /// `rebuild(model:manifest:values:)`).
    static func network(manifest: BlobManifest, manifestPath: String, input: BlobInput) throws -> Network {
        let inputShape = ActivationShape(channels: input.shape[0], height: input.shape[1], width: input.shape[2])
        let heads = Dictionary((manifest.heads ?? []).map { ($0.layer, $0.decoding) }, uniquingKeysWith: { first, _ in first })
        var layers: [Layer] = []
        for (position, entry) in manifest.layers.enumerated() {
            func fail(_ message: String, expected: String? = nil, found: String? = nil) -> FoldKitError {
                FoldKitError(.unsupported, message, file: manifestPath, layer: "\(entry.index) \(entry.type)", expected: expected, found: found)
            }
            guard entry.index == position, entry.inputs.allSatisfy({ $0 >= Network.inputIndex && $0 < position }), entry.outputShape.count == 3 else {
                throw fail("layer entries must be in order, read earlier layers and have a [C, H, W] output shape")
            }
            let inputShapes = entry.inputs.map { $0 == Network.inputIndex ? inputShape : layers[$0].outputShape }
            guard let first = inputShapes.first else { throw fail("the layer reads no input") }
            let output = ActivationShape(channels: entry.outputShape[0], height: entry.outputShape[1], width: entry.outputShape[2])
            let kind = try kind(of: entry, firstInput: first, output: output, head: heads[entry.index], fail: fail)
            let layer = Layer(
                index: entry.index, name: entry.name, kind: kind, inputs: entry.inputs, outputShape: output,
                source: LayerSource(file: manifestPath, section: entry.type))
            layers.append(layer)
        }
        let outputs = layers.filter { heads[$0.index] != nil }.map(\.index)
        return Network(
            format: manifest.source.format == "keras" ? .keras : .darknet, sourceFiles: [manifestPath], inputShape: inputShape,
            inputOrder: input.modelLayout == "NHWC" ? .channelsLast : .channelsFirst, layers: layers, outputs: outputs,
            epsilonConvention: EpsilonConvention(epsilon: manifest.source.bnEpsilon, placement: .insideSqrt),
            layerIdentity: manifest.source.format == "keras" ? .name : .index)
    }

    /// The layer kind a manifest entry describes.
    private static func kind(
        of entry: BlobLayer, firstInput: ActivationShape, output: ActivationShape, head: DetectionHead?,
        fail: (String, String?, String?) -> FoldKitError
    ) throws -> LayerKind {
        func pair(_ values: [Int]?, _ name: String) throws -> (Int, Int) {
            guard let values, values.count == 2 else { throw fail("the layer has no \(name)", "[y, x]", values.map { "\($0)" }) }
            return (values[0], values[1])
        }
        func padding() -> Padding2D {
            guard let p = entry.padding, p.count == 4 else { return .zero }
            return Padding2D(top: p[0], left: p[1], bottom: p[2], right: p[3])
        }
        func activation() throws -> Activation {
            guard let name = entry.activation else { return .linear }
            guard let parsed = Activation(manifestName: name) else { throw fail("unknown activation", "a manifest activation name", name) }
            return parsed
        }
        if let head { return .detection(head) }
        if entry.passThrough == true { return .identity(reason: entry.type) }
        if let offset = entry.channelOffset { return .channelRange(ChannelRange(offset: offset, channels: output.channels)) }
        switch entry.type {
        case let type where type.hasPrefix("conv"):
            let (kh, kw) = try pair(entry.kernel, "kernel")
            let (sy, sx) = try pair(entry.stride, "stride")
            let (dy, dx) = try pair(entry.dilation ?? [1, 1], "dilation")
            let groups = entry.groups ?? 1
            let placeholder = WeightTensor(shape: [output.channels, firstInput.channels / max(groups, 1), kh, kw], values: [])
            return .convolution(
                Convolution(
                    inputChannels: firstInput.channels, outputChannels: output.channels, kernelHeight: kh, kernelWidth: kw, strideY: sy, strideX: sx,
                    dilationY: dy, dilationX: dx, padding: padding(), groups: groups, weights: placeholder, bias: nil, activation: try activation()))
        case "connected":
            let placeholder = WeightTensor(shape: [output.channels, firstInput.count], values: [])
            return .fullyConnected(
                FullyConnected(
                    inputCount: firstInput.count, outputCount: output.channels, weights: placeholder, bias: nil, activation: try activation()))
        case "maxpool", "avgpool":
            let (kh, kw) = try pair(entry.kernel, "kernel")
            let (sy, sx) = try pair(entry.stride, "stride")
            return .pooling(
                Pooling(
                    kind: entry.type == "maxpool" ? .max : .average, kernelHeight: kh, kernelWidth: kw, strideY: sy, strideX: sx, padding: padding(),
                    countIncludesPadding: entry.countIncludesPadding ?? false))
        case "global_avgpool": return .globalAveragePool
        case "global_maxpool": return .globalMaxPool
        case "route":
            let groups = entry.routeGroups ?? [1, 0]
            guard groups.count == 2 else { throw fail("routeGroups must be [groups, group id]", "2 values", "\(groups)") }
            return .concatenation(Concatenation(groups: groups[0], groupID: groups[1]))
        case "shortcut":
            return .sum(ElementwiseSum(activation: try activation()))
        case "multiply":
            return .product
        case "upsample":
            let (sy, sx) = try pair(entry.stride, "stride")
            return .upsample(Upsample(strideY: sy, strideX: sx, scale: Float(entry.scale ?? 1)))
        default:
            if let name = entry.activation, name == entry.type, let parsed = Activation(manifestName: name) { return .activation(parsed) }
            throw fail(
                "this layer type cannot be rebuilt from the blob folder alone; run with the source model (foldkit verify MODEL --blobs DIR)", nil,
                entry.type)
        }
    }
}
