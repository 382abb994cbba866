/// What `NCNNExporter` writes (Docs/Export.md, "ncnn").
public struct NCNNExportOptions: Sendable {
    /// How the weights ncnn reads with a storage flag are stored in model.bin.
    public enum WeightType: String, Sendable, CaseIterable {
        /// float32, flag 0 before each flagged buffer.
        case float32
        /// IEEE binary16 (round to nearest even) with ncnn's half tag 0x01306B47 before each flagged buffer,
        /// padded to 4 bytes; ncnn widens them to float32 when it loads the model.
        case float16
    }

    /// float32 (default) or float16 weights.
    public var weightType: WeightType

    /// Options writing `weightType` weights.
    public init(weightType: WeightType = .float32) {
        self.weightType = weightType
    }
}
