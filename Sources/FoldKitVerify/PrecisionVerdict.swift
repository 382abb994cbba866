/// The per-layer verdict of one precision: every layer's `LayerVerdict` and the first one over its allowance.
public struct PrecisionVerdict: Codable, Equatable, Sendable {
    /// float32 or float16 storage.
    public var precision: VerificationPrecision
    /// What the control run is: the original network in this precision.
    public var control: String
    /// What is checked: the folded network in this precision.
    public var candidate: String
    /// K: a layer may deviate K times as much as the control does (`ToleranceBudget.controlFactor`).
    public var controlFactor: Double
    /// Every layer's verdict, in order.
    public var layers: [LayerVerdict]
    /// The first layer over its allowance, if any.
    public var firstLayerOverTolerance: VerificationReport.LayerRef?
    /// Every layer within its allowance.
    public var pass: Bool

    /// The verdict of `layers` in `precision` (pass and first failure derived).
    public init(precision: VerificationPrecision, layers: [LayerVerdict]) {
        self.precision = precision
        switch precision {
        case .float32:
            control = "original network (batch norm unfolded), float32"
            candidate = "folded network, float32"
        case .float16Storage:
            control = "original network (batch norm unfolded), float16 weights and float16 storage between layers, float32 arithmetic"
            candidate = "folded network, float16 weights and float16 storage between layers, float32 arithmetic"
        }
        controlFactor = ToleranceBudget.controlFactor(precision)
        self.layers = layers
        let first = layers.first { !$0.pass }
        firstLayerOverTolerance = first.map { .init(index: $0.index, name: $0.name, type: $0.type) }
        pass = first == nil
    }
}
