import FoldKitCore
import FoldKitONNXProto
import Foundation
import SwiftProtobuf

/// Writes an onnx `ModelProto` to a file one initializer at a time, so memory holds the graph's nodes and
/// one weight tensor, never the whole model.
///
/// Protocol buffers merge repeated occurrences of a message field: a `ModelProto` serialised as the model
/// without initializers followed by one `graph` field (number 7) per initializer, each a `GraphProto` holding
/// just that `TensorProto`, parses as the one model whose graph lists every initializer in that order
/// (the protobuf encoding guide, "Last One Wins" / merging of embedded messages). onnx, ONNX Runtime and
/// OpenVINO read such files with the protobuf library; `onnx.checker` checks them (Docs/Export.md).
enum ONNXModelFile {
    /// Writes `model` (its graph without initializers), then `initializers`, to `url`; returns the bytes
    /// written. A float16 initializer value past 65504 is refused naming the initializer's layer.
    static func write(
        model: Onnx_ModelProto, initializers: [ONNXInitializer], trailer: (() throws -> Onnx_ModelProto)? = nil, to url: URL
    ) throws -> Int {
        let file = try ModelFileAppender(url: url)
        try file.append(try model.serializedBytes())
        // Initializer k + 1 is read, folded and serialized on another thread while k is written; the reads
        // stay one at a time and in order (each starts when the one before has finished).
        func serialize(_ initializer: ONNXInitializer) throws -> Data {
            var graph = Onnx_GraphProto()
            graph.initializer = [try tensor(initializer)]
            var part = Onnx_ModelProto()
            part.graph = graph
            return try part.serializedBytes()
        }
        var next = initializers.first.map { first in SerializedPart { try serialize(first) } }
        for k in initializers.indices {
            guard let current = next else { break }
            let bytes = try current.result()
            next = k + 1 < initializers.count ? SerializedPart { [initializer = initializers[k + 1]] in try serialize(initializer) } : nil
            try file.append(bytes)
        }
        if let trailer { try file.append(try trailer().serializedBytes()) }
        return file.written
    }

    /// The `TensorProto` of `initializer`: dims, data type and little-endian `raw_data`.
    static func tensor(_ initializer: ONNXInitializer) throws -> Onnx_TensorProto {
        var tensor = Onnx_TensorProto()
        tensor.name = initializer.name
        tensor.dims = initializer.dims.map(Int64.init)
        tensor.dataType = initializer.dataType
        switch initializer.payload {
        case .int64s(let values):
            tensor.rawData = values.map { $0.littleEndian }.withUnsafeBufferPointer { Data(buffer: $0) }
        case .floats(let read):
            let values = try read()
            guard values.count == initializer.count else {
                throw FoldKitError(
                    .badInput, "tensor \(initializer.name) does not have the size the graph gives it", file: initializer.file,
                    layer: initializer.layer, expected: "\(initializer.count) values", found: "\(values.count)")
            }
            tensor.rawData = try rawData(values, dataType: initializer.dataType, initializer: initializer)
        }
        return tensor
    }

    /// float32 or float16 little-endian bytes of `values`.
    private static func rawData(_ values: [Float], dataType: Int32, initializer: ONNXInitializer) throws -> Data {
        if dataType == ONNXElementType.float16Code {
            if let index = values.firstIndex(where: { $0.isFinite && abs($0) > HalfPrecision.largestFinite }) {
                throw FoldKitError(
                    .badInput, "a weight is past float16's range (65504): it would become infinity", file: initializer.file,
                    layer: initializer.layer, expected: "|value| <= 65504 for --dtype float16",
                    found: "\(values[index]) at element \(index) of \(initializer.name)")
            }
            var bits = [UInt16](repeating: 0, count: values.count)
            for i in values.indices { bits[i] = HalfPrecision.bits(values[i]).littleEndian }
            return bits.withUnsafeBufferPointer { Data(buffer: $0) }
        }
        #if _endian(little)
            return values.withUnsafeBytes { Data($0) }
        #else
            return values.map { $0.bitPattern.littleEndian }.withUnsafeBufferPointer { Data(buffer: $0) }
        #endif
    }
}
