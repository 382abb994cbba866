import FoldKitCore

/// Pooling as FoldKit computes it (`Pooling`): windows start at -padding.top / -padding.left, the output is
/// (H + top + bottom - k) / stride + 1 (floor), positions outside the input are -infinity for max and left
/// out of (or, with `countIncludesPadding`, counted in) the average.
extension NCNNGraphBuilder {
    /// `Pooling` with the layer's own pads and pad_mode 1 ("valid": the pads as given, the output floored):
    /// 0=type (0 max, 1 average) 1/11=kernel 2/12=stride 3/14/13/15=pads left, right, top, bottom,
    /// 6=avgpool_count_include_pad. ncnn pads a max pool with -FLT_MAX (any padding, darknet's included)
    /// and divides an average by the window's positions inside the input unless told to count the padding,
    /// so both are FoldKit's - except for a window wholly in the padding (FoldKit: -infinity, or 0/0 for an
    /// average without the padding), which is refused.
    mutating func pooling(_ p: Pooling, input: String, inputShape: ActivationShape) throws -> String {
        func outside(extent: Int, kernel: Int, stride: Int, before: Int, after: Int) -> Bool {
            let outputs = (extent + before + after - kernel) / stride + 1
            return before >= kernel || (outputs - 1) * stride - before >= extent
        }
        let emptyWindow =
            outside(extent: inputShape.height, kernel: p.kernelHeight, stride: p.strideY, before: p.padding.top, after: p.padding.bottom)
            || outside(extent: inputShape.width, kernel: p.kernelWidth, stride: p.strideX, before: p.padding.left, after: p.padding.right)
        if emptyWindow && !(p.kind == .average && p.countIncludesPadding) {
            throw refuse("a pooling window lies wholly in the padding (ncnn gives -FLT_MAX or 0/0 where FoldKit gives -infinity)")
        }
        return op(
            "Pooling", [input],
            [
                (0, .int(p.kind == .max ? 0 : 1)), (1, .int(p.kernelWidth)), (11, .int(p.kernelHeight)), (2, .int(p.strideX)),
                (12, .int(p.strideY)), (3, .int(p.padding.left)), (14, .int(p.padding.right)), (13, .int(p.padding.top)),
                (15, .int(p.padding.bottom)), (5, .int(1)), (6, .int(p.countIncludesPadding ? 1 : 0)),
            ])
    }

    /// darknet [avgpool], Keras GlobalAveragePooling2D / GlobalMaxPooling2D: `Pooling` 4=global_pooling
    /// (a vector of C), then `Reshape` back to C x 1 x 1.
    mutating func globalPool(max: Bool, input: String, channels: Int) -> String {
        let pooled = op("Pooling", [input], [(0, .int(max ? 0 : 1)), (4, .int(1))])
        return reshape(pooled, to: ActivationShape(channels: channels, height: 1, width: 1))
    }
}
