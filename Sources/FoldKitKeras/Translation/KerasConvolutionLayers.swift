import FoldKitCore

/// Conv2D (Convolution2D), DepthwiseConv2D, SeparableConv2D (SeparableConvolution2D) and
/// Conv2DTranspose. Kernels are stored HWIO (Keras 1 'th': OIHW; Conv2DTranspose H x W x out x in) and
/// become OIHW (see `KerasLayout`).
enum KerasConvolutionLayers {
    static func conv2D(_ layer: KerasLayerDescription, input: Int, _ context: inout KerasTranslationContext) throws {
        let config = try KerasConvolutionConfig(context.config(layer), kerasMajor: context.kerasMajor)
        let inShape = context.shape(of: input)
        guard let filters = config.filters else { throw context.error(.badInput, layer, "no filters / nb_filter") }
        let (kh, kw) = config.kernel
        let groups = config.groups
        let padding = try config.padding(for: inShape)
        guard groups >= 1, inShape.channels % groups == 0 else {
            throw context.error(.badInput, layer, "groups must divide the input channels", found: "groups=\(groups), channels=\(inShape.channels)")
        }
        let perGroup = inShape.channels / groups
        let arrays = try context.weightArrays(layer, expected: config.useBias ? 2 : 1, roles: config.useBias ? "kernel, bias" : "kernel")
        let kernel: [Float]
        if config.theanoKernelOrder {
            try context.expectShape(layer, arrays[0], [filters, perGroup, kh, kw])
            kernel = KerasLayout.oihw(arrays[0].values, outChannels: filters, inChannels: perGroup, kh: kh, kw: kw, flip: context.flipKernels)
        } else {
            try context.expectShape(layer, arrays[0], [kh, kw, perGroup, filters])
            kernel = KerasLayout.hwioToOIHW(arrays[0].values, kh: kh, kw: kw, inChannels: perGroup, outChannels: filters, flip: context.flipKernels)
        }
        let bias = config.useBias ? try context.vector(layer, arrays[1], filters) : nil
        let conv = Convolution(
            inputChannels: inShape.channels, outputChannels: filters, kernelHeight: kh, kernelWidth: kw,
            strideY: config.strides.0, strideX: config.strides.1, dilationY: config.dilation.0, dilationX: config.dilation.1,
            padding: padding, groups: groups, weights: WeightTensor(shape: [filters, perGroup, kh, kw], values: kernel), bias: bias)
        try context.emitConvolution(layer, conv, activation: config.activation, input: input)
    }

    /// DepthwiseConv2D: kernel (kh, kw, C, multiplier) -> C x multiplier outputs, groups = C.
    static func depthwise(_ layer: KerasLayerDescription, input: Int, _ context: inout KerasTranslationContext) throws {
        let config = try KerasConvolutionConfig(context.config(layer), kerasMajor: context.kerasMajor)
        let inShape = context.shape(of: input)
        let padding = try config.padding(for: inShape)
        let c = inShape.channels
        let arrays = try context.weightArrays(
            layer, expected: config.useBias ? 2 : 1,
            roles: config.useBias ? "depthwise_kernel, bias" : "depthwise_kernel")
        let conv = try depthwiseConvolution(layer, config, channels: c, padding: padding, kernel: arrays[0], &context)
        var withBias = conv
        withBias.bias = config.useBias ? try context.vector(layer, arrays[1], c * config.depthMultiplier) : nil
        try context.emitConvolution(layer, withBias, activation: config.activation, input: input)
    }

    /// SeparableConv2D = depthwise (kh x kw, strides, dilation, padding, no bias) named `<name>_depthwise`,
    /// then pointwise 1x1 (+ bias, activation) under the layer's own name.
    static func separable(_ layer: KerasLayerDescription, input: Int, _ context: inout KerasTranslationContext) throws {
        let config = try KerasConvolutionConfig(context.config(layer), kerasMajor: context.kerasMajor)
        let inShape = context.shape(of: input)
        guard let filters = config.filters else { throw context.error(.badInput, layer, "no filters") }
        let padding = try config.padding(for: inShape)
        let c = inShape.channels
        let m = config.depthMultiplier
        let arrays = try context.weightArrays(
            layer, expected: config.useBias ? 3 : 2,
            roles: config.useBias ? "depthwise_kernel, pointwise_kernel, bias" : "depthwise_kernel, pointwise_kernel")
        try context.expectShape(layer, arrays[0], [config.kernel.0, config.kernel.1, c, m])
        try context.expectShape(layer, arrays[1], [1, 1, c * m, filters])
        let depthwise = try depthwiseConvolution(layer, config, channels: c, padding: padding, kernel: arrays[0], &context)
        let dwIndex = try context.emitInternal(name: "\(layer.name)_depthwise", of: layer, .convolution(depthwise), [input])
        let pointwise = Convolution(
            inputChannels: c * m, outputChannels: filters, kernelHeight: 1, kernelWidth: 1,
            weights: WeightTensor(
                shape: [filters, c * m, 1, 1],
                values: KerasLayout.hwioToOIHW(arrays[1].values, kh: 1, kw: 1, inChannels: c * m, outChannels: filters)),
            bias: config.useBias ? try context.vector(layer, arrays[2], filters) : nil)
        try context.emitConvolution(layer, pointwise, activation: config.activation, input: dwIndex)
    }

    /// The depthwise part (no bias) of DepthwiseConv2D and SeparableConv2D from its (kh, kw, C, m) kernel.
    private static func depthwiseConvolution(
        _ layer: KerasLayerDescription, _ config: KerasConvolutionConfig, channels c: Int,
        padding: Padding2D, kernel: KerasWeightArray,
        _ context: inout KerasTranslationContext
    ) throws -> Convolution {
        let (kh, kw) = config.kernel
        let m = config.depthMultiplier
        try context.expectShape(layer, kernel, [kh, kw, c, m])
        return Convolution(
            inputChannels: c, outputChannels: c * m, kernelHeight: kh, kernelWidth: kw,
            strideY: config.strides.0, strideX: config.strides.1, dilationY: config.dilation.0, dilationX: config.dilation.1,
            padding: padding, groups: c,
            weights: WeightTensor(
                shape: [c * m, 1, kh, kw],
                values: KerasLayout.depthwiseToOIHW(kernel.values, kh: kh, kw: kw, inChannels: c, multiplier: m, flip: context.flipKernels)),
            bias: nil)
    }

    /// Conv2DTranspose (tf.nn.conv2d_transpose, the gradient of Conv2D): kernel (kh, kw, filters, in).
    /// Output length per axis as Keras's `deconv_output_length`: 'valid' in * s + max(k - s, 0), 'same'
    /// in * s, or with output_padding p: (in - 1) * s + k - 2 * pad + p (pad = k / 2 for 'same', 0 for
    /// 'valid'). The output starts `offset` positions into the full transposed output, TensorFlow's
    /// 'same' rule for a convolution from that length back to the input: offset = max((in - 1) * s + k -
    /// length, 0) / 2 for 'same', 0 for 'valid'. Dilation and groups are refused.
    static func transposed(_ layer: KerasLayerDescription, input: Int, _ context: inout KerasTranslationContext) throws {
        let values = context.config(layer)
        let config = try KerasConvolutionConfig(values, kerasMajor: context.kerasMajor)
        let inShape = context.shape(of: input)
        guard let filters = config.filters else { throw context.error(.badInput, layer, "no filters") }
        guard config.dilation == (1, 1), config.groups == 1 else {
            throw context.error(
                .unsupported, layer, "dilated or grouped Conv2DTranspose is not supported",
                found: "dilation \(config.dilation), groups \(config.groups)")
        }
        let (kh, kw) = config.kernel
        let (sy, sx) = config.strides
        for (name, pair) in [("kernel size", config.kernel), ("strides", config.strides)] where pair.0 < 1 || pair.1 < 1 {
            throw context.error(.badInput, layer, "\(name) must be positive", found: "(\(pair.0), \(pair.1))")
        }
        let mode = values.paddingMode
        guard mode == "valid" || mode == "same" else {
            throw values.error(.unsupported, "padding mode '\(mode)' is not supported", expected: "valid or same", found: mode)
        }
        let outputPadding: (Int, Int)? =
            values["output_padding"].flatMap { $0.isNull ? nil : $0 } == nil ? nil : try values.pair("output_padding", default: (0, 0))
        func geometry(input n: Int, kernel k: Int, stride s: Int, extra: Int?) -> (length: Int, offset: Int) {
            let length: Int
            if let extra {
                length = (n - 1) * s + k - 2 * (mode == "same" ? k / 2 : 0) + extra
            } else {
                length = mode == "same" ? n * s : n * s + max(k - s, 0)
            }
            let offset = mode == "same" ? max((n - 1) * s + k - length, 0) / 2 : 0
            return (length, offset)
        }
        let vertical = geometry(input: inShape.height, kernel: kh, stride: sy, extra: outputPadding?.0)
        let horizontal = geometry(input: inShape.width, kernel: kw, stride: sx, extra: outputPadding?.1)
        let arrays = try context.weightArrays(layer, expected: config.useBias ? 2 : 1, roles: config.useBias ? "kernel, bias" : "kernel")
        try context.expectShape(layer, arrays[0], [kh, kw, filters, inShape.channels])
        // (kh, kw, out, in) -> (out, in, kh, kw)
        let stored = arrays[0].values
        var kernel = [Float](repeating: 0, count: stored.count)
        for ky in 0..<kh {
            for kx in 0..<kw {
                for o in 0..<filters {
                    for i in 0..<inShape.channels {
                        kernel[((o * inShape.channels + i) * kh + ky) * kw + kx] = stored[((ky * kw + kx) * filters + o) * inShape.channels + i]
                    }
                }
            }
        }
        let bias = config.useBias ? try context.vector(layer, arrays[1], filters) : nil
        let weights = WeightTensor(shape: [filters, inShape.channels, kh, kw], values: kernel)
        try context.emitParameterLayer(layer, activation: config.activation, input: input) { activation in
            .transposedConvolution(
                TransposedConvolution(
                    weights: weights, bias: bias, outputChannels: filters, inputChannels: inShape.channels, kernelHeight: kh,
                    kernelWidth: kw, strideY: sy, strideX: sx, offsetY: vertical.offset, offsetX: horizontal.offset,
                    outputHeight: vertical.length, outputWidth: horizontal.length, activation: activation))
        }
    }
}
