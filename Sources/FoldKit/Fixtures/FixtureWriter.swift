import Foundation
import FoldKitCore

/// Writes a seeded (or given) input and every layer's output as .npy files plus `manifest.json`.
///
/// The outputs come from the original network (batch norm unfolded) computed in float64 and rounded
/// once to float32: the most accurate reference FoldKit can give another engine's tests.
public enum FixtureWriter {
    /// `progress` gets the layers of the passes "forward pass (float64)" and "writing" (layer outputs
    /// written) as they finish.
    @discardableResult
    public static func write(
        network: Network, input: ModelInput, layout: FixtureLayout, npz: Bool = false, to destination: URL, progress: LayerProgress? = nil
    ) throws -> FixtureManifest {
        let outputs = try compute(network: network, input: input, progress: progress)
        let vectors = vectorLayers(network)
        return try AtomicOutputDirectory.write(to: destination) { folder in
            var tensors: [FixtureManifest.Tensor] = []
            var packed: [(name: String, values: [Float], shape: [Int])] = []
            for (index, values) in outputs.enumerated() {
                let entry = describe(network: network, position: index)
                let arranged = arrange(values, position: index, shape: entry.shape, layout: layout, vectors: vectors)
                let data = NPYFile.encode(values: arranged.values, shape: arranged.shape)
                let url = try folder.url(for: entry.fileName)
                do { try data.write(to: url) } catch { throw FoldKitError(.io, "cannot write fixture: \(error.localizedDescription)", file: url.path) }
                tensors.append(FixtureManifest.Tensor(file: entry.fileName, layer: entry.id, name: entry.name, type: entry.type, shape: arranged.shape,
                                                      layout: layout.rawValue, dtype: "float32", sha256: Checksum.sha256Hex(data)))
                if npz { packed.append((String(entry.fileName.dropLast(4)), arranged.values, arranged.shape)) }
                if index > 0 { progress?("writing", index, outputs.count - 1) }
            }
            var pack: FixtureManifest.Pack?
            if npz {
                let url = try folder.url(for: "fixtures.npz")
                try NPZArchive.write(arrays: packed, to: url)
                pack = .init(file: "fixtures.npz", sha256: try Checksum.sha256Hex(fileAt: url.path))
            }
            let manifest = FixtureManifest(
                format: "foldkit-fixtures", version: 1, source: network.sourceFiles.map { URL(fileURLWithPath: $0).lastPathComponent },
                bnEpsilon: network.epsilonConvention.epsilon, bnEpsilonMode: network.epsilonConvention.placement.rawValue,
                input: input.origin, computedBy: computedBy, layout: layout.rawValue, tensors: tensors, pack: pack)
            try JSONOutput.write(manifest, to: try folder.url(for: "manifest.json"))
            return manifest
        }
    }

    /// Keras layers whose output is a rank-2 (batch, features) tensor: Dense, Flatten, global pooling,
    /// and element-wise layers on those. Their fixtures have shape (1, N) as Keras' own outputs do;
    /// Darknet has no such rank, so its outputs stay (1, C, 1, 1).
    static func vectorLayers(_ network: Network) -> Set<Int> {
        guard network.format == .keras else { return [] }
        var vectors = Set<Int>()
        for layer in network.layers {
            let isVector: Bool
            switch layer.kind {
            case .fullyConnected, .globalAveragePool, .globalMaxPool: isVector = true
            case .reshape(let r): isVector = r.target.height == 1 && r.target.width == 1
            case .activation, .softmax, .identity, .batchNorm, .channelAffine, .prelu, .sum, .product, .concatenation:
                isVector = !layer.inputs.isEmpty && layer.inputs.allSatisfy { vectors.contains($0) }
            default: isVector = false
            }
            if isVector { vectors.insert(layer.index) }
        }
        return vectors
    }

    static let computedBy = "original network (batch norm unfolded), float64 arithmetic, stored as float32"

    /// The input followed by every layer's output, channel-major float32.
    static func compute(network: Network, input: ModelInput, progress: LayerProgress? = nil) throws -> [[Float]] {
        let layerCount = network.layers.count
        let outputs = try Executor<Double>(network: network).run(
            input: input.values.map(Double.init), retention: .all,
            observe: progress.map { report in { index, _ in report("forward pass (float64)", index + 1, layerCount) } })
        return [input.values] + outputs.map { $0.map { Float($0) } }
    }

    /// File name, manifest id, name, type and shape of tensor `position` (0 = input, i + 1 = layer i).
    static func describe(network: Network, position: Int) -> (fileName: String, id: FixtureManifest.LayerID, name: String, type: String, shape: ActivationShape) {
        if position == 0 { return ("input.npy", .name("input"), "input", "input", network.inputShape) }
        let layer = network.layers[position - 1]
        let id: FixtureManifest.LayerID = network.format == .darknet ? .index(layer.index) : .name(layer.name)
        let suffix = network.format == .darknet ? "" : "_" + SafeFileName.sanitize(layer.name)
        return (String(format: "layer_%03d", layer.index) + suffix + ".npy", id, layer.name, layer.kind.typeName, layer.outputShape)
    }

    /// `arrange` for tensor `position` (0 = input), giving Keras' rank-2 outputs the shape (1, N).
    static func arrange(_ values: [Float], position: Int, shape: ActivationShape, layout: FixtureLayout, vectors: Set<Int>) -> (values: [Float], shape: [Int]) {
        var arranged = arrange(values, shape: shape, layout: layout)
        if position > 0, vectors.contains(position - 1), layout != .sliced { arranged.shape = [1, shape.channels] }
        return arranged
    }

    /// Rearranges channel-major values into `layout`, returning values and the .npy shape.
    static func arrange(_ values: [Float], shape: ActivationShape, layout: FixtureLayout) -> (values: [Float], shape: [Int]) {
        switch layout {
        case .nchw: return (values, [1, shape.channels, shape.height, shape.width])
        case .nhwc: return (TensorLayout.chwToHWC(values, shape: shape), [1, shape.height, shape.width, shape.channels])
        case .sliced: return TensorLayout.chwToSliced(values, shape: shape)
        }
    }
}
