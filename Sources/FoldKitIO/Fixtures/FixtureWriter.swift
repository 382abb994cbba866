import FoldKitCore
import FoldKitRuntime
import Foundation

/// Writes a seeded (or given) input and the chosen layers' outputs as .npy files plus `manifest.json`,
/// and with `onnx` the same arrays as onnx TensorProto files (`ONNXTensorFile`).
///
/// The outputs come from the original network (batch norm unfolded) computed in float64 and rounded
/// once to float32: the most accurate reference FoldKit can give another engine's tests.
///
/// Streams (Docs/Fixtures.md): each layer's output is written, hashed and added to the `.npz` as soon
/// as it is computed, and released once no later layer reads it (`OutputLiveness`); parameters are read
/// layer by layer. Memory is bounded by the outputs alive at once, not by the whole pack. Files go to a
/// temporary folder moved into place at the end (`AtomicOutputDirectory`): a failed run leaves nothing.
public enum FixtureWriter {
    /// The single progress phase of `write`: a layer counts once its output has been computed and written.
    public static let progressPhase = "forward pass (float64) and writing"

    /// The manifest version `write` produces (Docs/Fixtures.md): 2 added `layers` and `onnx`.
    public static let manifestVersion = 2

    /// Writes the pack to `destination`. `layers` chooses which layers' outputs are written (the input
    /// always is); it is resolved against the network (`FixtureLayerChoice.layerIndices(in:)`, throwing
    /// for unknown layers) before anything is computed, and the pass stops after the last chosen layer.
    /// `npz` adds `fixtures.npz`; `onnx` adds `test_data_set_0/input_0.pb` and `output_<k>.pb` (k = 0, 1, ...
    /// over the written layer tensors in manifest order).
    /// `progress` gets `progressPhase` with the layers done (computed and written) as they finish, out of
    /// the layers computed (up to the last chosen one).
    /// `durable` flushes every file and the folder to disk before the folder is swapped into place
    /// (by default the pack is atomic only: Docs/Security.md, "Output safety", item "Durability"). `productThreading` is the
    /// forward pass's (`ExecutorOptions.productThreading`); the pack is the same either way.
    @discardableResult
    public static func write(
        network: Network, input: ModelInput, layout: FixtureLayout, layers: FixtureLayerChoice = .all, npz: Bool = false, onnx: Bool = false,
        to destination: URL, durable: Bool = false, productThreading: ProductThreading = .library, progress: LayerProgress? = nil
    ) throws -> FixtureManifest {
        let chosen = try layers.layerIndices(in: network)
        let positions = Set(chosen.map { $0 + 1 }).union([0])
        let last = chosen.last.map { $0 + 1 } ?? 0
        let vectors = vectorLayers(network)
        return try AtomicOutputDirectory.write(to: destination, durable: durable) { folder in
            var tensors: [FixtureManifest.Tensor] = []
            var onnxTensors: [FixtureManifest.ONNXTensor] = []
            var packer = npz ? try NPZArchiveWriter(url: try folder.url(for: "fixtures.npz")) : nil
            try forEachTensor(network: network, input: input, productThreading: productThreading, through: last) { position, values in
                if positions.contains(position) {
                    for tensor in stored(network: network, position: position, values: values, layout: layout, vectors: vectors) {
                        let data = NPYFile.encode(values: tensor.values, shape: tensor.shape)
                        try write(data, to: try folder.url(for: tensor.fileName))
                        tensors.append(
                            FixtureManifest.Tensor(
                                file: tensor.fileName, layer: tensor.id, name: tensor.name, type: tensor.type, shape: tensor.shape,
                                layout: tensor.layout, dtype: .float32, sha256: Checksum.sha256Hex(data)))
                        try packer?.add(name: String(tensor.fileName.dropLast(4)), npy: data)
                        if onnx {
                            let name = position == 0 ? ONNXTensorFile.inputName : ONNXTensorFile.outputName(onnxTensors.count - 1)
                            let proto = try ONNXTensorFile.encode(npy: data, shape: tensor.shape, name: tensor.name)
                            try write(proto, to: try folder.url(for: name, in: ONNXTensorFile.folder))
                            onnxTensors.append(
                                FixtureManifest.ONNXTensor(
                                    file: ONNXTensorFile.path(name), npy: tensor.fileName, layer: tensor.id, name: tensor.name,
                                    sha256: Checksum.sha256Hex(proto)))
                        }
                    }
                }
                if position > 0 { progress?(progressPhase, position, last) }
            }
            var pack: FixtureManifest.Pack?
            if let url = packer?.url {
                packer = nil  // closes the archive before it is hashed
                pack = .init(file: "fixtures.npz", sha256: try Checksum.sha256Hex(fileAt: url.path))
            }
            let manifest = FixtureManifest(
                format: "foldkit-fixtures", version: manifestVersion,
                source: network.sourceFiles.map { URL(fileURLWithPath: $0).lastPathComponent },
                bnEpsilon: network.epsilonConvention.epsilon, bnEpsilonMode: network.epsilonConvention.placement.rawValue,
                input: input.origin, computedBy: computedBy, layout: layout, tensors: tensors, pack: pack,
                layers: .init(choice: layers.name, written: chosen.map { layerID(network.layers[$0], in: network) }),
                onnx: onnx ? onnxTensors : nil)
            try JSONOutput.write(manifest, to: try folder.url(for: "manifest.json"))
            return manifest
        }
    }

    /// Writes one file of the pack.
    private static func write(_ data: Data, to url: URL) throws {
        do { try data.write(to: url) } catch {
            throw FoldKitError(.io, "cannot write fixture: \(error.localizedDescription)", file: url.path)
        }
    }

    /// How the manifest names `layer`: its index (Darknet) or its name (Keras).
    static func layerID(_ layer: Layer, in network: Network) -> FixtureManifest.LayerID {
        network.layerIdentity == .index ? .index(layer.index) : .name(layer.name)
    }

    /// Keras layers whose output is a rank-2 (batch, features) tensor: Dense, Flatten, global pooling,
    /// and element-wise layers on those. Their fixtures have shape (1, N) as Keras' own outputs do;
    /// Darknet has no such rank, so its outputs stay (1, C, 1, 1).
    package static func vectorLayers(_ network: Network) -> Set<Int> {
        guard network.vectorsAreRank2 else { return [] }
        var vectors = Set<Int>()
        for layer in network.layers {
            let isVector: Bool
            switch layer.kind.operation.vectorRule {
            case .always: isVector = true
            case .whenInputsAre: isVector = !layer.inputs.isEmpty && layer.inputs.allSatisfy { vectors.contains($0) }
            case .never: isVector = false
            }
            if isVector { vectors.insert(layer.index) }
        }
        return vectors
    }

    static let computedBy = "original network (batch norm unfolded), float64 arithmetic, stored as float32"

    /// Calls `body(position, values)` with the input (position 0) and then with each layer's output
    /// (position i + 1 for layer i) as soon as it is computed, up to position `last` (the layers after it
    /// are not run): channel-major, float64 rounded to float32.
    /// Between calls only the outputs later layers still read (and the network's outputs) are held, in
    /// float64; `body` owns `values`. Parameters are read and converted layer by layer.
    static func forEachTensor(
        network: Network, input: ModelInput, productThreading: ProductThreading, through last: Int? = nil, _ body: (Int, [Float]) throws -> Void
    ) throws {
        let last = last ?? network.layers.count
        let executor = try Executor<Double>(network: network, options: ExecutorOptions(streamParameters: true, productThreading: productThreading))
        let pass = try executor.start(input: input.values.map(Double.init), retention: .outputsOnly)
        try body(0, input.values)
        guard last > 0 else { return }
        while let (index, output) = try pass.next() {
            try body(index + 1, output.map { Float($0) })
            if index + 1 >= last { return }
        }
    }

    /// File name, manifest id, name, type and shape of tensor `position` (0 = input, i + 1 = layer i).
    static func describe(network: Network, position: Int) -> (
        fileName: String, id: FixtureManifest.LayerID, name: String, type: String, shape: ActivationShape
    ) {
        if position == 0 { return ("input.npy", .name("input"), "input", "input", network.inputShape) }
        let layer = network.layers[position - 1]
        let id = layerID(layer, in: network)
        let suffix = network.layerIdentity == .index ? "" : "_" + SafeFileName.sanitize(layer.name)
        return (String(format: "layer_%03d", layer.index) + suffix + ".npy", id, layer.name, network.typeName(of: layer), layer.outputShape)
    }

    /// One .npy file of a pack: name, manifest fields and arranged values.
    package struct StoredTensor {
        package var fileName: String
        package var id: FixtureManifest.LayerID
        package var name: String
        package var type: String
        package var layout: FixtureLayout
        package var shape: [Int]
        package var values: [Float]
    }

    /// The files a pack holds for tensor `position` (0 = input, i + 1 = layer i), from its channel-major
    /// `values`: one, arranged in `layout`; for the layers whose darknet buffer differs from FoldKit's
    /// output (`DarknetLayerOutput`: detection heads and [cost]) two: `layer_NNN.npy` with darknet's buffer
    /// (a [region] head's in darknet's location-first order, layout "nhwc", whatever `layout` says) and
    /// `layer_NNN_raw.npy` with the head's input as FoldKit computes it (the raw logits).
    package static func stored(network: Network, position: Int, values: [Float], layout: FixtureLayout, vectors: Set<Int>) -> [StoredTensor] {
        let entry = describe(network: network, position: position)
        let arranged = arrange(values, position: position, shape: entry.shape, layout: layout, vectors: vectors)
        let plain = StoredTensor(
            fileName: entry.fileName, id: entry.id, name: entry.name, type: entry.type, layout: layout, shape: arranged.shape,
            values: arranged.values)
        guard position > 0, let darknet = DarknetLayerOutput.transform(network.layers[position - 1], values: values) else { return [plain] }
        var head = plain, raw = plain
        switch darknet.order {
        case .channelMajor:
            let transformed = arrange(darknet.values, position: position, shape: entry.shape, layout: layout, vectors: vectors)
            (head.values, head.shape) = (transformed.values, transformed.shape)
        case .locationFirst:
            (head.values, head.shape, head.layout) = (darknet.values, [1, entry.shape.height, entry.shape.width, entry.shape.channels], .nhwc)
        }
        raw.fileName = String(entry.fileName.dropLast(4)) + "_raw.npy"
        raw.name = entry.name + " (raw)"
        raw.type = entry.type + " input (raw logits)"
        return [head, raw]
    }

    /// `arrange` for tensor `position` (0 = input), giving Keras' rank-2 outputs the shape (1, N).
    static func arrange(_ values: [Float], position: Int, shape: ActivationShape, layout: FixtureLayout, vectors: Set<Int>) -> (
        values: [Float], shape: [Int]
    ) {
        var arranged = arrange(values, shape: shape, layout: layout)
        if position > 0, vectors.contains(position - 1), layout != .sliced { arranged.shape = [1, shape.channels] }
        return arranged
    }

    /// Rearranges channel-major values into `layout`, returning values and the .npy shape.
    package static func arrange(_ values: [Float], shape: ActivationShape, layout: FixtureLayout) -> (values: [Float], shape: [Int]) {
        switch layout {
        case .nchw: return (values, [1, shape.channels, shape.height, shape.width])
        case .nhwc: return (TensorLayout.chwToHWC(values, shape: shape), [1, shape.height, shape.width, shape.channels])
        case .sliced: return TensorLayout.chwToSliced(values, shape: shape)
        }
    }
}
