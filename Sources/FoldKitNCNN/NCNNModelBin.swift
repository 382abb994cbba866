import FoldKitCore
import Foundation

/// Writes ncnn's model.bin: the weight buffers of every layer, in the order of the param file's layers and,
/// within a layer, in the order its `load_model` reads them; one buffer at a time, so memory holds one
/// weight tensor, never the model. A flagged buffer (`NCNNWeight.Storage.flagged`, ModelBin::load type 0)
/// starts with its 4-byte little-endian storage flag: 0 then float32 values, or ncnn's half tag 0x01306B47
/// then IEEE binary16 values (round to nearest even) padded with zeros to a multiple of 4 bytes. A raw
/// buffer (type 1) is float32 values alone. Every buffer is 4-byte aligned.
enum NCNNModelBin {
    /// The storage flag of a float32 buffer.
    static let float32Flag: UInt32 = 0
    /// ncnn's tag of a float16 buffer.
    static let float16Flag: UInt32 = 0x0130_6B47

    /// Writes the buffers of `layers` to `url`; returns the bytes written. A value past 65504 in a buffer
    /// stored as float16 is refused naming its layer.
    static func write(_ layers: [NCNNLayer], weightType: NCNNExportOptions.WeightType, to url: URL) throws -> Int {
        let file = try ModelFileAppender(url: url)
        for layer in layers {
            for weight in layer.weights { try file.append(try bytes(weight, weightType: weightType)) }
        }
        return file.written
    }

    /// The bytes of one buffer.
    static func bytes(_ weight: NCNNWeight, weightType: NCNNExportOptions.WeightType) throws -> Data {
        let values = try weight.values()
        guard values.count == weight.count else {
            throw FoldKitError(
                .badInput, "\(weight.hint) does not have the size the layer gives it", file: weight.file, layer: weight.layer,
                expected: "\(weight.count) values", found: "\(values.count)")
        }
        func float32(_ values: [Float]) -> Data { values.map { $0.bitPattern.littleEndian }.withUnsafeBufferPointer { Data(buffer: $0) } }
        func word(_ v: UInt32) -> Data { withUnsafeBytes(of: v.littleEndian) { Data($0) } }
        switch (weight.storage, weightType) {
        case (.raw, _):
            return float32(values)
        case (.flagged, .float32):
            return word(float32Flag) + float32(values)
        case (.flagged, .float16):
            if let index = values.firstIndex(where: { $0.isFinite && abs($0) > HalfPrecision.largestFinite }) {
                throw FoldKitError(
                    .badInput, "a weight is past float16's range (65504): it would become infinity", file: weight.file, layer: weight.layer,
                    expected: "|value| <= 65504 for --dtype float16", found: "\(values[index]) at element \(index) of \(weight.hint)")
            }
            var bits = [UInt16](repeating: 0, count: values.count + values.count % 2)
            for i in values.indices { bits[i] = HalfPrecision.bits(values[i]).littleEndian }
            return word(float16Flag) + bits.withUnsafeBufferPointer { Data(buffer: $0) }
        }
    }
}
