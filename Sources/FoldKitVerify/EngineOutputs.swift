import FoldKitCore
import FoldKitIO
import Foundation

/// Outputs an engine computed (ONNX Runtime, OpenVINO, Core ML on a device, TensorRT on a Jetson), read from
/// a folder for `foldkit verify --engine-outputs` (Docs/Verify.md, "Engine outputs").
///
/// One file per network output, named as the exported model names its outputs and as fixture packs name the
/// layers (`NetworkOutputTensor`): `<name>.npy` (float32, or float64 / float16 converted) or `<name>.pb` (an
/// onnx TensorProto, FLOAT in raw_data, as onnx's numpy_helper writes it), in the output's shape (`[1, C, H, W]`,
/// `[1, C]` for Keras vectors) or the same without the batch axis. A detection head's output is either its
/// raw input (`layer_NNN_raw`, the default export) or darknet's own buffer (`layer_NNN`, `export
/// --decode-heads`; a [region] head's `[1, H, W, C]`), never both. A missing, doubled, unreadable or
/// misshapen file is an error naming it; nothing is judged then.
public enum EngineOutputs {
    /// What was read: channel-major values by layer index, and the files with their digests.
    public struct Loaded: Sendable {
        /// The values of each output layer, channel-major, by layer index.
        public var values: [Int: [Float]]
        /// Every file read (role `engineOutput`), for the report's `filesRead`.
        public var files: [FileDigest]
        /// The layers whose values are darknet's buffer (decoded heads), channel-major, not FoldKit's output.
        public var darknetBuffers: Set<Int> = []
    }

    /// Reads every output of `network` from `folder`.
    public static func read(folder: String, network: Network) throws -> Loaded {
        var loaded = Loaded(values: [:], files: [])
        let decoded = Dictionary(
            NetworkOutputTensor.outputs(of: network, decodedHeads: true).map { ($0.layer, $0) }, uniquingKeysWith: { first, _ in first })
        for raw in NetworkOutputTensor.outputs(of: network) {
            var candidates = [raw]
            if raw.rawHead, let buffer = decoded[raw.layer], buffer.darknetBuffer { candidates.append(buffer) }
            let found = try candidates.compactMap { output in try file(for: output, in: folder).map { (output, $0) } }
            guard found.count <= 1 else {
                throw FoldKitError(
                    .usage, "engine output of layer \(raw.layerName) is there twice", file: folder,
                    expected: "one of \(candidates.map(\.name).joined(separator: " and ")) (raw head or darknet's buffer)", found: "both")
            }
            guard let (output, path) = found.first else {
                throw FoldKitError(
                    .usage, "engine output \(raw.name) (layer \(raw.layerName)) is missing", file: folder,
                    expected: candidates.map { "\($0.name).npy or \($0.name).pb" }.joined(separator: ", or "), found: "neither")
            }
            let (shape, array, digest) = path.hasSuffix(".npy") ? try readNPY(path) : try readPB(path)
            let body = Array(output.shape.dropFirst())
            guard shape == output.shape || shape == body else {
                throw FoldKitError(
                    .badInput, "engine output \(output.name) has another shape than layer \(output.layerName)'s output", file: path,
                    expected: ShapeText.tuple(output.shape.map(String.init)) + " or " + ShapeText.tuple(body.map(String.init)),
                    found: ShapeText.tuple(shape.map(String.init)))
            }
            if output.darknetBuffer {
                let layerShape = network.layers[output.layer].outputShape
                loaded.values[output.layer] = DarknetLayerOutput.channelMajor(array, order: output.order, shape: layerShape)
                loaded.darknetBuffers.insert(output.layer)
            } else {
                loaded.values[output.layer] = array
            }
            loaded.files.append(digest)
        }
        return loaded
    }

    /// The one file holding `output` in `folder` (`.npy` or `.pb`), nil when there is none.
    private static func file(for output: NetworkOutputTensor, in folder: String) throws -> String? {
        let npy = (folder as NSString).appendingPathComponent(output.name + ".npy")
        let pb = (folder as NSString).appendingPathComponent(output.name + ".pb")
        let hasNPY = FileManager.default.fileExists(atPath: npy), hasPB = FileManager.default.fileExists(atPath: pb)
        if hasNPY && hasPB {
            throw FoldKitError(
                .usage, "engine output \(output.name) is there twice", file: folder, expected: "one of \(output.name).npy and \(output.name).pb",
                found: "both")
        }
        return hasNPY ? npy : hasPB ? pb : nil
    }

    private static func readNPY(_ path: String) throws -> ([Int], [Float], FileDigest) {
        let array = try InputArray.header(path: path).loaded()
        var digest = try array.digest ?? FileDigest.of(path, role: .engineOutput)
        digest.role = .engineOutput
        return (array.shape, array.values, digest)
    }

    private static func readPB(_ path: String) throws -> ([Int], [Float], FileDigest) {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw FoldKitError(.io, "cannot read engine output: \(error.localizedDescription)", file: path)
        }
        let decoded = try ONNXTensorFile.decode(data, file: path)
        guard let values = decoded.values else {
            throw FoldKitError(
                .badInput, "engine output is not a float32 tensor with its values in raw_data", file: path,
                expected: "data_type FLOAT (1) and \(decoded.shape.reduce(1, *) * 4) bytes of raw_data",
                found: "data_type \(decoded.dataType), \(decoded.raw.count) bytes")
        }
        return (decoded.shape, values, FileDigest(role: .engineOutput, path: path, bytes: data.count, sha256: Checksum.sha256Hex(data)))
    }
}
