import FoldKitCore

/// [maxpool] (alias [max]) and [local_avgpool] (alias [local_avg]), as darknet's `parse_maxpool`,
/// `parse_local_avgpool` and `make_maxpool_layer`:
///
/// - `stride` (1), `stride_x`/`stride_y` (default stride), `size` (default stride),
///   `padding` (default size-1) is the TOTAL padding per axis.
/// - out = (in + padding - size)/stride + 1; the window of output y starts at y*stride - padding/2.
///   So FoldKit's padding is top/left = padding/2, bottom/right = padding - padding/2.
/// - Max pooling treats cells outside the input as -infinity (-FLT_MAX in darknet).
/// - [local_avgpool] divides by the number of in-bounds cells (`counter` in
///   `forward_local_avgpool_layer`, CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING on GPU), so
///   `countIncludesPadding` is false.
///
/// Refused: maxpool_depth (pools over channels), antialiasing (adds a blur convolution),
/// maxpool_zero_nonmax.
enum PoolingSection {
    static func build(_ context: SectionContext, kind: Pooling.Kind) throws -> BuiltLayer {
        if kind == .max {
            try context.refuse("maxpool_depth", because: "pooling across channels is not supported")
            try context.refuse("antialiasing", because: "the blur convolution darknet adds after the layer is not represented")
            try context.refuse("maxpool_zero_nonmax", because: "it changes the layer's output")
        }
        let stride = try context.int("stride", default: 1)
        let strideX = try context.int("stride_x", default: stride)
        let strideY = try context.int("stride_y", default: stride)
        let size = try context.int("size", default: stride)
        let padding = try context.int("padding", default: size - 1)
        guard size >= 1, strideX >= 1, strideY >= 1, padding >= 0 else {
            throw context.error(
                .badInput, "size and stride must be at least 1 and padding at least 0",
                found: "size=\(size) stride=\(strideX)x\(strideY) padding=\(padding)")
        }
        let pad = Padding2D(top: padding / 2, left: padding / 2, bottom: padding - padding / 2, right: padding - padding / 2)
        let pooling = Pooling(
            kind: kind, kernelHeight: size, kernelWidth: size, strideY: strideY, strideX: strideX,
            padding: pad, countIncludesPadding: false)
        return BuiltLayer(kind: .pooling(pooling), inputs: [context.previous])
    }
}
