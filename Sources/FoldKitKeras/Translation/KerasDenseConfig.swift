import FoldKitCore

/// Dense's config: units (Keras 1: output_dim), use_bias (Keras 1: bias), activation.
struct KerasDenseConfig {
    let units: Int
    let useBias: Bool
    let activation: KerasActivationChoice

    init(_ values: KerasLayerConfig, kerasMajor: Int) throws {
        guard let units = values["units"]?.int ?? values["output_dim"]?.int else { throw values.error(.badInput, "no units / output_dim") }
        self.units = units
        useBias = values["use_bias"]?.bool ?? values["bias"]?.bool ?? true
        activation = try KerasActivationChoice.inline(values, kerasMajor: kerasMajor)
    }
}
