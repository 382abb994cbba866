import FoldKitCore

/// Dense: kernel (inputs, units) transposed to FoldKit's [units][inputs]. On a vector it is a fully
/// connected layer; on a channels-last (H, W, C) map it acts on the last axis, a 1x1 convolution.
enum KerasDenseLayers {
    static func dense(_ layer: KerasLayerDescription, input: Int, _ context: inout KerasTranslationContext) throws {
        let values = context.config(layer)
        let inShape = context.shape(of: input)
        let config = try KerasDenseConfig(values, kerasMajor: context.kerasMajor)
        let (units, useBias, activation) = (config.units, config.useBias, config.activation)
        let arrays = try context.weightArrays(layer, expected: useBias ? 2 : 1, roles: useBias ? "kernel, bias" : "kernel")
        let bias = useBias ? try context.vector(layer, arrays[1], units) : nil
        if context.isVector(inShape) {
            let n = inShape.channels
            try context.expectShape(layer, arrays[0], [n, units])
            let fc = FullyConnected(
                inputCount: n, outputCount: units,
                weights: WeightTensor(shape: [units, n], values: KerasLayout.transpose(arrays[0].values, rows: n, columns: units)),
                bias: bias)
            try context.emitParameterLayer(layer, activation: activation, input: input) { activation in
                var fc = fc
                fc.activation = activation
                return .fullyConnected(fc)
            }
            return
        }
        guard !context.channelsFirst else {
            throw values.error(
                .unsupported, "Dense on a channels-first feature map (applies to the width axis) is not supported", found: "input \(inShape)")
        }
        let c = inShape.channels
        try context.expectShape(layer, arrays[0], [c, units])
        let conv = Convolution(
            inputChannels: c, outputChannels: units, kernelHeight: 1, kernelWidth: 1,
            weights: WeightTensor(shape: [units, c, 1, 1], values: KerasLayout.transpose(arrays[0].values, rows: c, columns: units)),
            bias: bias)
        try context.emitConvolution(layer, conv, activation: activation, input: input)
    }
}
