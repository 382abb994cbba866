import FoldKitCore

/// Conv2D (Convolution2D), DepthwiseConv2D and SeparableConv2D (SeparableConvolution2D). Kernels are
/// stored HWIO (Keras 1 'th': OIHW) and become OIHW (see `KerasLayout`).
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
}
