import FoldKitCore

/// BatchNormalization's config: axis, epsilon (default 1e-3), scale and center (Keras 1, which
/// has a `mode` field, always stores gamma and beta), and Keras 1 `mode` (only 0, inference with
/// the moving statistics, is supported).
struct KerasBatchNormConfig {
    let axis: KerasJSON?
    let epsilon: Double
    let scale: Bool
    let center: Bool
    let keras1Mode: Int?

    init(_ values: KerasLayerConfig) {
        axis = values["axis"]
        epsilon = values["epsilon"]?.double ?? 1e-3
        keras1Mode = values["mode"]?.int
        let keras1 = values["mode"] != nil
        scale = keras1 ? true : (values["scale"]?.bool ?? true)
        center = keras1 ? true : (values["center"]?.bool ?? true)
    }

    /// The stored weight arrays' roles, in stored order.
    var roles: [String] {
        var roles: [String] = []
        if scale { roles.append("gamma") }
        if center { roles.append("beta") }
        return roles + ["moving_mean", "moving_variance"]
    }
}
