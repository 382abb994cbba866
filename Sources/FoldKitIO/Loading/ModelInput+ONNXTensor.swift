import FoldKitCore
import Foundation

extension ModelInput {
    /// The input of an onnx test data set (`test_data_set_0/input_0.pb`, as `foldkit export` writes it): a
    /// float32 TensorProto of dims `[1, C, H, W]` (the exported model's default NCHW input) or `[1, H, W, C]`
    /// (exported with `--input-layout nhwc`), whatever the model's own layout; NCHW is taken when both
    /// match (H = W = C). Any other shape or type is an error naming the file.
    public static func onnxTensor(path: String, network: Network) throws -> ModelInput {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw FoldKitError(.io, "cannot read input: \(error.localizedDescription)", file: path)
        }
        let decoded = try ONNXTensorFile.decode(data, file: path)
        let s = network.inputShape
        let nchw = [1, s.channels, s.height, s.width], nhwc = [1, s.height, s.width, s.channels]
        guard let values = decoded.values, decoded.shape == nchw || decoded.shape == nhwc else {
            throw FoldKitError(
                .usage, "input tensor does not match the network", file: path,
                expected: "float32 " + ShapeText.tuple(nchw.map(String.init)) + " or " + ShapeText.tuple(nhwc.map(String.init)),
                found: "data_type \(decoded.dataType) " + ShapeText.tuple(decoded.shape.map(String.init)))
        }
        let digest = FileDigest(role: .input, path: path, bytes: data.count, sha256: Checksum.sha256Hex(data))
        let channelMajor = decoded.shape == nchw ? values : TensorLayout.hwcToCHW(values, shape: s)
        return ModelInput(values: channelMajor, origin: path, file: digest)
    }
}
