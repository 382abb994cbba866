/// A constant's bytes, produced when the model file is written (so the weights stream to disk one tensor
/// at a time): `byteCount` bytes, little-endian.
struct TFLiteConstant: Sendable {
    var byteCount: Int
    var produce: @Sendable () throws -> [UInt8]
}
