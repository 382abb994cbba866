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
            throw context.error(.badInput, "size and stride must be at least 1 and padding at least 0",
                                found: "size=\(size) stride=\(strideX)x\(strideY) padding=\(padding)")
        }
        let pad = Padding2D(top: padding / 2, left: padding / 2, bottom: padding - padding / 2, right: padding - padding / 2)
        let pooling = Pooling(kind: kind, kernelHeight: size, kernelWidth: size, strideY: strideY, strideX: strideX,
                              padding: pad, countIncludesPadding: false)
        return BuiltLayer(kind: .pooling(pooling), inputs: [context.previous])
    }
}

/// [avgpool] (alias [avg]): the mean over H x W per channel; output C x 1 x 1.
enum GlobalAveragePoolSection {
    static func build(_ context: SectionContext) throws -> BuiltLayer {
        BuiltLayer(kind: .globalAveragePool, inputs: [context.previous])
    }
}

/// [softmax] (alias [soft]): softmax over each of `groups` (1) contiguous runs of the flattened
/// channel-major input (darknet's `softmax_cpu` with batch offsets `inputs/groups`).
/// Refused: temperature other than 1, tree= (hierarchical softmax), spatial=.
enum SoftmaxSection {
    static func build(_ context: SectionContext) throws -> BuiltLayer {
        let groups = try context.int("groups", default: 1)
        let temperature = try context.float("temperature", default: 1)
        if temperature != 1, let option = context.section.option("temperature") {
            throw context.error(.unsupported, "softmax temperature other than 1 is not supported", at: option, expected: "1", found: option.value)
        }
        if let option = context.section.option("tree") {
            throw context.error(.unsupported, "hierarchical (tree) softmax is not supported", at: option)
        }
        try context.refuse("spatial", because: "per-pixel softmax is not supported")
        let count = context.inputShape.count
        guard groups >= 1, count % groups == 0 else {
            throw context.error(.badInput, "softmax groups must divide the input size", found: "groups=\(groups), inputs=\(count)")
        }
        return BuiltLayer(kind: .softmax(.flattened(groups: groups)), inputs: [context.previous])
    }
}

/// [dropout], [cost], [empty]/[silence]: pass the input through at inference.
enum IdentitySection {
    static func build(_ context: SectionContext, reason: String) throws -> BuiltLayer {
        BuiltLayer(kind: .identity(reason: reason), inputs: [context.previous])
    }
}

/// [activation]: `activation` (linear) applied element-wise.
enum ActivationSection {
    static func build(_ context: SectionContext) throws -> BuiltLayer {
        BuiltLayer(kind: .activation(try DarknetActivation.read(context, default: "linear")), inputs: [context.previous])
    }
}
