import FoldKitCore
import FoldKitONNXProto
import Foundation
import SwiftProtobuf

/// onnx test data beside a fixture pack's `.npy` files (`foldkit fixtures --onnx`, Docs/Fixtures.md
/// "ONNX test data"): the folder layout of onnx's backend tests and onnxruntime's `onnx_test_runner`,
/// `test_data_set_0/input_0.pb`, `output_0.pb`, `output_1.pb`, ..., each a serialized onnx `TensorProto`
/// (onnx/onnx.proto) holding exactly the array of one `.npy` file:
///
/// - `dims` (field 1) = the `.npy` shape, `data_type` (2) = FLOAT (1), `name` (8) = the manifest
///   tensor's name, `raw_data` (9) = the `.npy` payload: float32 little-endian in the same C order.
///
/// The encoding is SwiftProtobuf's, from the message `Onnx_TensorProto` of FoldKitONNXProto, generated out of
/// Fixtures/onnx/onnx-model.proto (onnx's own field names and numbers) by Fixtures/onnx/generate-swift.sh.
package enum ONNXTensorFile {
    /// The folder inside the pack.
    static let folder = "test_data_set_0"

    /// The input's file name in `folder`.
    static let inputName = "input_0.pb"

    /// The `number`th output file's name in `folder` (0-based, in the order of the manifest's tensors).
    static func outputName(_ number: Int) -> String { "output_\(number).pb" }

    /// The pack-relative path of file `name` in `folder`, as the manifest lists it.
    static func path(_ name: String) -> String { folder + "/" + name }

    /// A serialized TensorProto for a float32 array of `shape` whose little-endian C-order bytes are `raw`.
    package static func encode(raw: Data, shape: [Int], name: String) throws -> Data {
        var tensor = Onnx_TensorProto()
        tensor.dims = shape.map(Int64.init)
        tensor.dataType = Int32(Onnx_TensorProto.DataType.float.rawValue)
        tensor.name = name
        tensor.rawData = raw
        return try tensor.serializedBytes()
    }

    /// A serialized TensorProto holding the array of `npy`, the bytes of a float32 `.npy` file of `shape`
    /// (`NPYFile.encode`): its payload, after the header, is `raw_data` unchanged.
    static func encode(npy: Data, shape: [Int], name: String) throws -> Data {
        let payload = shape.reduce(1, *) * MemoryLayout<Float>.size
        return try encode(raw: npy.suffix(payload), shape: shape, name: name)
    }

    /// The array a file holds.
    package struct Decoded: Equatable {
        /// `dims`.
        package var shape: [Int]
        /// `data_type` (1 = FLOAT).
        package var dataType: Int
        /// `name`.
        package var name: String
        /// `raw_data`.
        package var raw: Data

        /// The float32 values of `raw` (little-endian), when `dataType` is FLOAT and the byte count is the shape's.
        package var values: [Float]? {
            guard dataType == Onnx_TensorProto.DataType.float.rawValue else { return nil }
            var count = MemoryLayout<Float>.size
            for d in shape {
                let (product, overflow) = count.multipliedReportingOverflow(by: d)
                guard d >= 0, !overflow else { return nil }
                count = product
            }
            guard raw.count == count else { return nil }
            return raw.withUnsafeBytes { bytes in
                (0..<raw.count / 4).map { Float(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))) }
            }
        }
    }

    /// Parses a serialized TensorProto. Throws `FoldKitError` (bad input) naming `file` when it is not one.
    package static func decode(_ data: Data, file: String) throws -> Decoded {
        let tensor: Onnx_TensorProto
        do { tensor = try Onnx_TensorProto(serializedBytes: data) } catch {
            throw FoldKitError(.badInput, "not an onnx TensorProto: \(error)", file: file)
        }
        return Decoded(shape: tensor.dims.map { Int($0) }, dataType: Int(tensor.dataType), name: tensor.name, raw: tensor.rawData)
    }
}
