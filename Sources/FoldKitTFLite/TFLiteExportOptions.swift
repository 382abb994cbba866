/// What `TFLiteExporter` writes (Docs/Export.md, "LiteRT").
public struct TFLiteExportOptions: Sendable {
    /// How the weights and biases of convolutions, transposed convolutions, connected and locally connected
    /// layers are stored (per-channel affines, normalization parameters, PReLU slopes and the constants a
    /// lowering computes are float32 in both).
    public enum WeightType: String, Sendable, CaseIterable {
        /// float32 constants.
        case float32
        /// IEEE binary16 constants (round to nearest even), each read through a DEQUANTIZE operator that
        /// widens it to float32: LiteRT's own float16 convention, so the runtime computes in float32 unless
        /// a delegate chooses half. A constant of fewer than 128 values stays float32 (its DEQUANTIZE would
        /// cost more bytes than half precision saves).
        case float16
    }

    /// float32 (default) or float16 weights.
    public var weightType: WeightType

    /// Options writing `weightType` weights.
    public init(weightType: WeightType = .float32) {
        self.weightType = weightType
    }
}
