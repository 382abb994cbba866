import FoldKitCore
import FoldKitIO
import Foundation

/// Outputs an engine computed (ONNX Runtime, OpenVINO, Core ML on a device, TensorRT on a Jetson), read from
/// a folder for `foldkit verify --engine-outputs` (Docs/Verify.md, "Engine outputs").
///
/// One file per network output, named as the exported model names its outputs and as fixture packs name the
/// layers (`NetworkOutputTensor`): `<name>.npy` (float32, or float64 / float16 converted) or `<name>.pb` (an
/// onnx TensorProto, FLOAT in raw_data, as onnx's numpy_helper writes it), in the output's shape (`[1, C, H, W]`,
/// `[1, C]` for Keras vectors) or the same without the batch axis. A missing, doubled, unreadable or
/// misshapen file is an error naming it; nothing is judged then.
public enum EngineOutputs {
    /// What was read: channel-major values by layer index, and the files with their digests.
    public struct Loaded: Sendable {
        /// The values of each output layer, channel-major, by layer index.
        public var values: [Int: [Float]]
        /// Every file read (role `engineOutput`), for the report's `filesRead`.
        public var files: [FileDigest]
    }

    /// Reads every output of `network` from `folder`.
    public static func read(folder: String, network: Network) throws -> Loaded {
        var values: [Int: [Float]] = [:]
        var files: [FileDigest] = []
        for output in NetworkOutputTensor.outputs(of: network) {
            let npy = (folder as NSString).appendingPathComponent(output.name + ".npy")
            let pb = (folder as NSString).appendingPathComponent(output.name + ".pb")
            let hasNPY = FileManager.default.fileExists(atPath: npy), hasPB = FileManager.default.fileExists(atPath: pb)
            if hasNPY && hasPB {
                throw FoldKitError(
                    .usage, "engine output \(output.name) is there twice", file: folder, expected: "one of \(output.name).npy and \(output.name).pb",
                    found: "both")
            }
            guard hasNPY || hasPB else {
                throw FoldKitError(
                    .usage, "engine output \(output.name) (layer \(output.layerName)) is missing", file: folder,
                    expected: "\(output.name).npy or \(output.name).pb", found: "neither")
            }
            let (shape, array, digest) = hasNPY ? try readNPY(npy) : try readPB(pb)
            let file = hasNPY ? npy : pb
            let body = Array(output.shape.dropFirst())
            guard shape == output.shape || shape == body else {
                throw FoldKitError(
                    .badInput, "engine output \(output.name) has another shape than layer \(output.layerName)'s output", file: file,
                    expected: ShapeText.tuple(output.shape.map(String.init)) + " or " + ShapeText.tuple(body.map(String.init)),
                    found: ShapeText.tuple(shape.map(String.init)))
            }
            values[output.layer] = array
            files.append(digest)
        }
        return Loaded(values: values, files: files)
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
