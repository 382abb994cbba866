import FoldKitCore

/// The config fields Conv2D, DepthwiseConv2D and SeparableConv2D share, with their Keras 1 names:
/// filters (nb_filter), kernel_size (nb_row, nb_col), strides (subsample), dilation_rate
/// (atrous_rate), use_bias (bias), padding (border_mode), depth_multiplier, groups, activation,
/// and Keras 1 dim_ordering 'th' (kernels stored OIHW).
struct KerasConvolutionConfig {
    let values: KerasLayerConfig
    /// nil for DepthwiseConv2D, which has none; each layer class says what is missing.
    let filters: Int?
    let kernel: (Int, Int)
    let strides: (Int, Int)
    let dilation: (Int, Int)
    let depthMultiplier: Int
    let groups: Int
    let useBias: Bool
    let activation: KerasActivationChoice
    let theanoKernelOrder: Bool

    init(_ values: KerasLayerConfig, kerasMajor: Int) throws {
        self.values = values
        filters = values["filters"]?.int ?? values["nb_filter"]?.int
        kernel =
            values["kernel_size"] != nil
            ? try values.pair("kernel_size", default: (1, 1))
            : (values["nb_row"]?.int ?? 0, values["nb_col"]?.int ?? 0)
        strides = try values.pair(values.firstKey("strides", "subsample"), default: (1, 1))
        dilation = try values.pair(values.firstKey("dilation_rate", "atrous_rate"), default: (1, 1))
        depthMultiplier = values["depth_multiplier"]?.int ?? 1
        groups = values["groups"]?.int ?? 1
        useBias = values["use_bias"]?.bool ?? values["bias"]?.bool ?? true
        activation = try KerasActivationChoice.inline(values, kerasMajor: kerasMajor)
        theanoKernelOrder = values["dim_ordering"]?.string == "th"
    }

    /// The padding for an input of `shape` (see `KerasLayerConfig.spatialPadding`).
    func padding(for shape: ActivationShape) throws -> Padding2D {
        try values.spatialPadding(shape, kernel: kernel, stride: strides, dilation: dilation)
    }
}
