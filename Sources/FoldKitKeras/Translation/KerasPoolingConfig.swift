import FoldKitCore

/// MaxPooling2D / AveragePooling2D config: pool_size (default 2), strides (default: the pool size,
/// also when null), padding.
struct KerasPoolingConfig {
    let values: KerasLayerConfig
    let pool: (Int, Int)
    let strides: (Int, Int)

    init(_ values: KerasLayerConfig) throws {
        self.values = values
        pool = try values.pair("pool_size", default: (2, 2))
        let given = values["strides"]
        strides = (given == nil || given?.isNull == true) ? pool : try values.pair("strides", default: pool)
    }

    /// The padding for an input of `shape` (see `KerasLayerConfig.spatialPadding`).
    func padding(for shape: ActivationShape) throws -> Padding2D {
        try values.spatialPadding(shape, kernel: pool, stride: strides, dilation: (1, 1))
    }
}
