/// An operator's `builtin_options`: the `BuiltinOptions` union member (its index in the union, schema order
/// from 1) and the fields of that table by field index.
struct TFLiteOptions: Sendable {
    /// A field value.
    enum Value: Sendable {
        case int32(Int32)
        case byte(Int8)
        case bool(Bool)
        case float(Float)
        case int32s([Int32])
    }

    /// The union member's index (Conv2DOptions 1, ...).
    var union: UInt8
    /// (field index, value).
    var fields: [(Int, Value)]

    /// The `ActivationFunctionType` values of `fused_activation_function`.
    enum Fused: Int8 {
        case none = 0
        case relu = 1
        case relu6 = 3
    }
    /// `Padding`: SAME 0, VALID 1.
    static let valid: Int8 = 1

    static func conv2D(strideX: Int, strideY: Int, dilationX: Int, dilationY: Int, fused: Fused, same: Bool = false) -> TFLiteOptions {
        TFLiteOptions(
            union: 1,
            fields: [
                (0, .byte(same ? 0 : valid)), (1, .int32(Int32(strideX))), (2, .int32(Int32(strideY))), (3, .byte(fused.rawValue)),
                (4, .int32(Int32(dilationX))), (5, .int32(Int32(dilationY))),
            ])
    }
    static func depthwiseConv2D(
        strideX: Int, strideY: Int, multiplier: Int, dilationX: Int, dilationY: Int, fused: Fused, same: Bool = false
    ) -> TFLiteOptions {
        TFLiteOptions(
            union: 2,
            fields: [
                (0, .byte(same ? 0 : valid)), (1, .int32(Int32(strideX))), (2, .int32(Int32(strideY))), (3, .int32(Int32(multiplier))),
                (4, .byte(fused.rawValue)), (5, .int32(Int32(dilationX))), (6, .int32(Int32(dilationY))),
            ])
    }
    static func pool2D(strideX: Int, strideY: Int, kernelWidth: Int, kernelHeight: Int) -> TFLiteOptions {
        TFLiteOptions(
            union: 5,
            fields: [
                (0, .byte(valid)), (1, .int32(Int32(strideX))), (2, .int32(Int32(strideY))), (3, .int32(Int32(kernelWidth))),
                (4, .int32(Int32(kernelHeight))),
            ])
    }
    static func fullyConnected(fused: Fused) -> TFLiteOptions { TFLiteOptions(union: 8, fields: [(0, .byte(fused.rawValue))]) }
    static func softmax(beta: Float) -> TFLiteOptions { TFLiteOptions(union: 9, fields: [(0, .float(beta))]) }
    static func concatenation(axis: Int) -> TFLiteOptions { TFLiteOptions(union: 10, fields: [(0, .int32(Int32(axis)))]) }
    static func add(fused: Fused = .none) -> TFLiteOptions { TFLiteOptions(union: 11, fields: [(0, .byte(fused.rawValue))]) }
    static func reshape(_ shape: [Int]) -> TFLiteOptions { TFLiteOptions(union: 17, fields: [(0, .int32s(shape.map { Int32($0) }))]) }
    static func spaceToDepth(block: Int) -> TFLiteOptions { TFLiteOptions(union: 19, fields: [(0, .int32(Int32(block)))]) }
    static let mul = TFLiteOptions(union: 21, fields: [])
    static let pad = TFLiteOptions(union: 22, fields: [])
    static let transpose = TFLiteOptions(union: 26, fields: [])
    static func reducer(keepDims: Bool) -> TFLiteOptions { TFLiteOptions(union: 27, fields: [(0, .bool(keepDims))]) }
    static let sub = TFLiteOptions(union: 28, fields: [])
    static let div = TFLiteOptions(union: 29, fields: [])
    static let stridedSlice = TFLiteOptions(union: 32, fields: [])
    static let exp = TFLiteOptions(union: 33, fields: [])
    static let dequantize = TFLiteOptions(union: 38, fields: [])
    static let maximumMinimum = TFLiteOptions(union: 39, fields: [])
    static let neg = TFLiteOptions(union: 42, fields: [])
    static let padV2 = TFLiteOptions(union: 43, fields: [])
    static let slice = TFLiteOptions(union: 48, fields: [])
    static func transposeConv(strideX: Int, strideY: Int) -> TFLiteOptions {
        TFLiteOptions(union: 49, fields: [(0, .byte(valid)), (1, .int32(Int32(strideX))), (2, .int32(Int32(strideY)))])
    }
    static let resizeNearest = TFLiteOptions(union: 74, fields: [(0, .bool(false)), (1, .bool(false))])
    static func leakyRelu(alpha: Float) -> TFLiteOptions { TFLiteOptions(union: 75, fields: [(0, .float(alpha))]) }
    static let abs = TFLiteOptions(union: 78, fields: [])
    static let hardSwish = TFLiteOptions(union: 91, fields: [])
    static let batchMatMul = TFLiteOptions(union: 101, fields: [])
    static let broadcastTo = TFLiteOptions(union: 104, fields: [])
    static func gelu(approximate: Bool) -> TFLiteOptions { TFLiteOptions(union: 116, fields: [(0, .bool(approximate))]) }
}

extension TFLiteOptions {
    static let greaterEqual = TFLiteOptions(union: 45, fields: [])
    static let selectV2 = TFLiteOptions(union: 98, fields: [])
    /// ResizeBilinearOptions (fields 0, 1 deprecated; 2 align_corners false, 3 half_pixel_centers true).
    static let resizeBilinearHalfPixel = TFLiteOptions(union: 15, fields: [(3, .bool(true))])
}
