import FoldKitCore

/// [convolutional] (alias [conv]), as darknet's `parse_convolutional` / `make_convolutional_layer`.
///
/// Options: `filters` (1), `size` (1), `stride` (1) or `stride_x`/`stride_y`, `pad` (0; pad=1 means
/// padding = size/2), `padding` (0, used when pad=0), `groups` (1), `dilation` (1, forced to 1 when
/// size=1), `batch_normalize` (0 = no batch norm, any other value = batch norm), `activation` (logistic).
///
/// Geometry: Darknet's output size is (in + 2*padding - size)/stride + 1 and its im2col pads with
/// padding*dilation zeros before the input. FoldKit writes that as top/left = padding*dilation and
/// bottom/right = 2*padding - padding*dilation + (size-1)*(dilation-1), which gives the same output size
/// under the usual (in + before + after - ((size-1)*dilation + 1))/stride + 1 and the same values (the
/// extra cells read zeros, as darknet's bounds check does). Without dilation both sides are `padding`;
/// with pad=1 and odd size (the common case) both sides are (size/2)*dilation.
///
/// Weights file: biases[n]; if batch norm: scales[n], rolling_mean[n], rolling_variance[n];
/// then weights[n][c/groups][size][size]. With batch norm the biases are beta (Convolution.bias = nil).
///
/// `share_index` (resnet152_trident.cfg's TridentNet branches): the layer computes with another
/// [convolutional]'s weights, biases and batch-norm statistics (`share_index >= 0`: that layer;
/// negative: relative to this one), with its own stride, dilation, padding and activation; its tensors
/// are not in the weights file (darknet's `load_weights_upto` skips a layer with a `share_layer`). The
/// shared layer must have the same filters, input channels, size, groups and batch normalisation:
/// darknet would otherwise read its arrays with another shape.
///
/// Refused (they change the maths or the file layout): binary=1, xnor=1 (binary weights cannot be
/// folded into float blobs), antialiasing, sway/rotate/stretch/stretch_sway (deformable),
/// flipped, coordconv, dontload, dontloadscales.
enum ConvolutionalSection {
    static func build(_ context: SectionContext) throws -> BuiltLayer {
        try refuseUnrepresented(context)
        let shared = try sharedConvolution(context)

        let input = context.inputShape
        let filters = try context.int("filters", default: 1)
        let size = try context.int("size", default: 1)
        let stride = try context.int("stride", default: 1)
        var strideX = try context.int("stride_x", default: -1)
        var strideY = try context.int("stride_y", default: -1)
        if strideX < 1 || strideY < 1 {
            if strideX < 1 { strideX = stride }
            if strideY < 1 { strideY = stride }
        }
        let groups = try context.int("groups", default: 1)
        var dilation = try context.int("dilation", default: 1)
        if size == 1 { dilation = 1 }
        let pad = try context.int("pad", default: 0)
        var padding = try context.int("padding", default: 0)
        if pad != 0 { padding = size / 2 }
        let batchNormalize = try context.int("batch_normalize", default: 0) != 0 || (try context.int("cbn", default: 0) != 0)
        let activation = try DarknetActivation.read(context, default: "logistic")

        guard filters >= 1, size >= 1, strideX >= 1, strideY >= 1, dilation >= 1, padding >= 0 else {
            throw context.error(
                .badInput, "filters, size, stride and dilation must be at least 1 and padding at least 0",
                found: "filters=\(filters) size=\(size) stride=\(strideX)x\(strideY) dilation=\(dilation) padding=\(padding)")
        }
        guard groups >= 1, input.channels % groups == 0, filters % groups == 0 else {
            throw context.error(
                .badInput, "groups must divide the input channels and filters",
                found: "groups=\(groups), input channels=\(input.channels), filters=\(filters)")
        }
        let before = padding * dilation
        let after = 2 * padding - padding * dilation + (size - 1) * (dilation - 1)
        guard after >= 0 else {
            throw context.error(
                .unsupported,
                "padding=\(padding) with dilation=\(dilation) and size=\(size) makes darknet's output smaller than its padded input; not supported",
                expected: "2*padding - padding*dilation + (size-1)*(dilation-1) >= 0", found: "\(after)")
        }

        let (weights, biases, batchNorm) = try parameters(
            context, shared: shared, filters: filters, size: size, groups: groups, batchNormalize: batchNormalize)

        let convolution = Convolution(
            inputChannels: input.channels, outputChannels: filters, kernelHeight: size, kernelWidth: size,
            strideY: strideY, strideX: strideX, dilationY: dilation, dilationX: dilation,
            padding: Padding2D(top: before, left: before, bottom: after, right: after), groups: groups,
            weights: weights, bias: batchNorm == nil ? biases : nil, batchNorm: batchNorm, activation: activation)
        return BuiltLayer(kind: .convolution(convolution), inputs: [context.previous])
    }

    /// Options darknet's convolution has and a float convolution cannot represent, each refused by name.
    private static func refuseUnrepresented(_ context: SectionContext) throws {
        for key in ["binary", "xnor"] {
            if let option = context.section.option(key), option.value != "0" {
                throw context.error(
                    .unsupported,
                    "binary (\(key)=\(option.value)) convolution cannot be folded into float blobs: its weights are signs times a per-filter mean and its inputs are binarised",
                    at: option, expected: "a float convolution")
            }
        }
        try context.refuse("antialiasing", because: "the blur convolution darknet adds after the layer is not represented")
        try context.refuse("sway", because: "deformable (rotated/stretched) convolutions are not supported")
        try context.refuse("rotate", because: "deformable (rotated/stretched) convolutions are not supported")
        try context.refuse("stretch", because: "deformable (rotated/stretched) convolutions are not supported")
        try context.refuse("stretch_sway", because: "deformable (rotated/stretched) convolutions are not supported")
        try context.refuse("flipped", because: "transposed weight storage is not supported")
        try context.refuse("coordconv", because: "coordinate channels are not supported")
        try context.refuse("dontload", because: "the layer's weights would not be in the file")
        try context.refuse("dontloadscales", because: "the layer's batch-norm statistics would not be in the file")
    }

    /// The layer's weights, bias and batch norm: those of the convolution `share_index` names (which must have
    /// this layer's shape), else read from the weights file in darknet's order.
    private static func parameters(
        _ context: SectionContext, shared: Convolution?, filters: Int, size: Int, groups: Int, batchNormalize: Bool
    ) throws -> (weights: WeightTensor, bias: WeightTensor?, batchNorm: BatchNorm?) {
        let input = context.inputShape
        if let shared {
            guard shared.outputChannels == filters, shared.inputChannels == input.channels, shared.kernelHeight == size,
                shared.kernelWidth == size, shared.groups == groups, (shared.batchNorm != nil) == batchNormalize
            else {
                throw context.error(
                    .badInput, "share_index names a convolution of another shape",
                    expected: "filters=\(filters) channels=\(input.channels) size=\(size) groups=\(groups) batch_normalize=\(batchNormalize ? 1 : 0)",
                    found:
                        "filters=\(shared.outputChannels) channels=\(shared.inputChannels) size=\(shared.kernelHeight) groups=\(shared.groups) "
                        + "batch_normalize=\(shared.batchNorm == nil ? 0 : 1)")
            }
            return (shared.weights, shared.bias, shared.batchNorm)
        }
        // darknet's load_convolutional_weights: biases, then scales, mean and variance, then the weights.
        let bias = try context.take(.bias, shape: [filters])
        let batchNorm = batchNormalize ? try context.takeBatchNorm(channels: filters, beta: bias) : nil
        let weights = try context.take(
            .weights, shape: [filters, input.channels / groups, size, size],
            fanIn: (SizeLimits.elementCount([input.channels / groups, size, size]) ?? 0))
        return (weights, bias, batchNorm)
    }

    /// The convolution `share_index=` names, or nil without the option.
    private static func sharedConvolution(_ context: SectionContext) throws -> Convolution? {
        guard let option = context.section.option("share_index") else { return nil }
        guard let value = Int(option.value) else {
            throw context.error(.badInput, "bad value for 'share_index'", at: option, expected: "an integer", found: "'\(option.value)'")
        }
        let target = value >= 0 ? value : context.index + value
        guard target >= 0, target < context.index, target < context.builder.layers.count,
            case .convolution(let shared) = context.builder.layers[target].kind
        else {
            throw context.error(
                .badInput, "share_index must name an earlier [convolutional] layer", at: option,
                expected: "0 ... \(context.index - 1), a convolution", found: "\(option.value) (layer \(target))")
        }
        return shared
    }
}
