/// The `OperatorCode.version` of each operator FoldKit writes: LiteRT's interpreter registers a kernel for
/// a range of versions per builtin (tflite/core/kernels/register.cc: BROADCAST_TO from 2, for one), and the
/// converter picks the version from what the operator reads (tflite/converter/tools/versioning/op_version.cc).
/// The rules here are that file's for float32 activations, the only ones FoldKit writes:
///
/// - DEQUANTIZE of float16: 3; BROADCAST_TO: 2;
/// - PAD and PADV2 of more than 4 dimensions: 4; SLICE of more than 4: 5; STRIDED_SLICE of more than 4: 4;
///   TRANSPOSE of more than 4: 4 (more than 5: 6);
/// - everything else: 1.
enum TFLiteOperatorVersion {
    /// The version of `operation` given the graph's `tensors`.
    static func of(_ operation: TFLiteOperation, tensors: [TFLiteTensor]) -> Int32 {
        let first = operation.inputs.first.flatMap { $0 >= 0 ? tensors[$0] : nil }
        let rank = first?.shape.count ?? 0
        switch operation.op {
        case .dequantize: return first?.type == .float16 ? 3 : 1
        case .broadcastTo: return 2
        case .pad, .padV2: return rank > 4 ? 4 : 1
        case .slice: return rank > 4 ? 5 : 1
        case .stridedSlice: return rank > 4 ? 4 : 1
        case .transpose: return rank > 5 ? 6 : rank > 4 ? 4 : 1
        case .add, .averagePool2D, .concatenation, .conv2D, .depthwiseConv2D, .fullyConnected, .logistic, .maxPool2D, .mul, .relu, .relu6,
            .reshape, .resizeBilinear, .softmax, .spaceToDepth, .tanh, .mean, .sub, .div, .exp, .prelu, .maximum, .minimum, .neg, .transposeConv,
            .log, .sum, .sqrt, .reduceMax, .resizeNearestNeighbor, .leakyRelu, .abs, .elu, .hardSwish, .batchMatMul, .gelu, .greaterEqual, .selectV2:
            return 1
        }
    }
}
