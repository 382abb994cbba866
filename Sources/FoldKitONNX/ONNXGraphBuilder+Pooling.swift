import FoldKitCore

/// Pooling as FoldKit computes it (`Pooling`): windows start at -padding.top / -padding.left, the output is
/// (H + top + bottom - k) / stride + 1 (floor, as onnx's default ceil_mode 0), positions outside the input
/// are -infinity for max and left out of (or, with `countIncludesPadding`, counted in) the average.
extension ONNXGraphBuilder {
    /// `MaxPool` or `AveragePool` with the layer's pads. onnx (and ONNX Runtime) require each pad to be smaller
    /// than the kernel; a max pool whose padding is not (darknet allows any `padding=`) is written as a Pad
    /// with -infinity followed by an unpadded MaxPool, which is the same computation.
    mutating func pooling(_ p: Pooling, input: String) throws -> String {
        let pads = [p.padding.top, p.padding.left, p.padding.bottom, p.padding.right]
        let kernel = [p.kernelHeight, p.kernelWidth]
        let padsFit =
            p.padding.top < p.kernelHeight && p.padding.bottom < p.kernelHeight && p.padding.left < p.kernelWidth
            && p.padding.right < p.kernelWidth
        var attributes = [ONNXAttribute.ints("kernel_shape", kernel), ONNXAttribute.ints("strides", [p.strideY, p.strideX])]
        switch p.kind {
        case .max:
            if padsFit {
                attributes.append(ONNXAttribute.ints("pads", pads))
                return node("MaxPool", [input], attributes)
            }
            let padded = pad(
                input, pads: [0, 0, p.padding.top, p.padding.left, 0, 0, p.padding.bottom, p.padding.right], value: -.infinity)
            return node("MaxPool", [padded], attributes)
        case .average:
            guard padsFit else { throw refuse("average pooling with padding as large as its window (onnx requires pads < kernel)") }
            attributes.append(ONNXAttribute.ints("pads", pads))
            attributes.append(ONNXAttribute.int("count_include_pad", p.countIncludesPadding ? 1 : 0))
            return node("AveragePool", [input], attributes)
        }
    }
}
