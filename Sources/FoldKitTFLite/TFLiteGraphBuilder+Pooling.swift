import FoldKitCore

/// Pooling as FoldKit computes it (`Pooling`): windows start at -padding.top / -padding.left, the output is
/// (H + top + bottom - k) / stride + 1 (floor), positions outside the input are -infinity for max and left
/// out of (or, with `countIncludesPadding`, counted in) the average.
extension TFLiteGraphBuilder {
    /// Max: PADV2 with -FLT_MAX (float32's lowest value) on the layer's own pads, then MAX_POOL_2D VALID,
    /// whose output is then FoldKit's floor((H + top + bottom - k) / stride) + 1. A padded position never
    /// wins a window holding an input value; a window wholly in the padding (FoldKit: -infinity, LiteRT:
    /// -FLT_MAX) is refused.
    ///
    /// Average: no padding, or padding counted (PAD with zeros), is AVERAGE_POOL_2D VALID. Padding left out of
    /// the divisor is LiteRT's SAME padding (the window's count of positions inside the input,
    /// tflite/kernels/internal/reference/pooling.h) where the pads are exactly SAME's (total
    /// max((ceil(H / s) - 1) * s + k - H, 0), the smaller half before); other pads (darknet's
    /// [local_avgpool]): PAD with zeros, AVERAGE_POOL_2D VALID (the window's sum / (kh * kw)), then MUL by a
    /// constant [1, OH, OW, 1] of kh * kw / (the window's positions inside the input) - FoldKit's average
    /// of the inside positions, to float32 rounding.
    mutating func pooling(_ p: Pooling, input: Int, inputShape: ActivationShape, outputShape: ActivationShape) throws -> Int {
        func outside(extent: Int, kernel: Int, stride: Int, before: Int, after: Int) -> Bool {
            let outputs = (extent + before + after - kernel) / stride + 1
            return before >= kernel || (outputs - 1) * stride - before >= extent
        }
        let emptyWindow =
            outside(extent: inputShape.height, kernel: p.kernelHeight, stride: p.strideY, before: p.padding.top, after: p.padding.bottom)
            || outside(extent: inputShape.width, kernel: p.kernelWidth, stride: p.strideX, before: p.padding.left, after: p.padding.right)
        let window = TFLiteOptions.pool2D(strideX: p.strideX, strideY: p.strideY, kernelWidth: p.kernelWidth, kernelHeight: p.kernelHeight)
        let before = [0, p.padding.top, p.padding.left, 0], after = [0, p.padding.bottom, p.padding.right, 0]
        switch p.kind {
        case .max:
            if emptyWindow { throw refuse("a max pooling window lies wholly in the padding (LiteRT gives -FLT_MAX where FoldKit gives -infinity)") }
            return op(.maxPool2D, [pad(input, before, after, value: -Float.greatestFiniteMagnitude)], shape: nhwc(outputShape), options: window)
        case .average:
            if p.padding == .zero || p.countIncludesPadding {
                return op(.averagePool2D, [pad(input, before, after)], shape: nhwc(outputShape), options: window)
            }
            func same(extent: Int, kernel: Int, stride: Int, before: Int, after: Int) -> Bool {
                let outputs = (extent + stride - 1) / stride
                let total = max((outputs - 1) * stride + kernel - extent, 0)
                return before == total / 2 && (extent + before + after - kernel) / stride + 1 == outputs
            }
            guard
                same(extent: inputShape.height, kernel: p.kernelHeight, stride: p.strideY, before: p.padding.top, after: p.padding.bottom)
                    && same(extent: inputShape.width, kernel: p.kernelWidth, stride: p.strideX, before: p.padding.left, after: p.padding.right)
            else {
                if emptyWindow { throw refuse("an average pooling window lies wholly in the padding (FoldKit gives 0/0 there)") }
                func inside(_ index: Int, extent: Int, kernel: Int, stride: Int, before: Int) -> Int {
                    let start = index * stride - before
                    return max(0, min(start + kernel, extent) - max(start, 0))
                }
                let (oh, ow) = (outputShape.height, outputShape.width)
                var scale = [Float](repeating: 0, count: oh * ow)
                for y in 0..<oh {
                    let rows = inside(y, extent: inputShape.height, kernel: p.kernelHeight, stride: p.strideY, before: p.padding.top)
                    for x in 0..<ow {
                        let columns = inside(x, extent: inputShape.width, kernel: p.kernelWidth, stride: p.strideX, before: p.padding.left)
                        scale[y * ow + x] = Float(p.kernelHeight * p.kernelWidth) / Float(rows * columns)
                    }
                }
                let mean = op(.averagePool2D, [pad(input, before, after)], shape: nhwc(outputShape), options: window)
                return binary(.mul, mean, constant(scale, shape: [1, oh, ow, 1], hint: "count"))
            }
            var sameWindow = window
            sameWindow.fields[0] = (0, .byte(0))
            return op(.averagePool2D, [input], shape: nhwc(outputShape), options: sameWindow)
        }
    }
}
