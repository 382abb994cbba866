import FoldKitCore

/// One layer's verdict in one precision: the reference's largest value, the control's deviation
/// (original network in this precision), the candidate's (folded network in this precision), and the
/// allowance the candidate's deviation is judged against (see `ToleranceBudget` for the rule):
///
///     floor      = analytic rounding floor (output units)
///     fromControl = K x control.maxAbsDeviation                 (0 when the control is not finite)
///     carried    = what a non-expanding layer (|f'| <= 1) carries over from its inputs' allowances, or nil
///     allowed    = atol + max(floor, fromControl, carried)      (atol + rtol x max|ref| with --rtol)
///     pass       = candidate.maxAbsDeviation <= allowed, or every element over `allowed` is
///                  ill-conditioned (`conditioning`, see `ConditioningFinding`)
public struct LayerVerdict: Codable, Equatable, Sendable {
    /// The layer's index.
    public var index: Int
    /// The layer's name.
    public var name: String
    /// The layer's type name.
    public var type: String
    /// [C, H, W]
    public var shape: [Int]
    /// Original network in this precision against the float64 reference.
    public var control: ControlDeviation
    /// Folded network in this precision against the float64 reference (with max |reference|).
    public var candidate: LayerDeviation
    /// The analytic rounding floor, output units.
    public var floor: Double
    /// K x the control's max deviation (0 when the control is not finite).
    public var fromControl: Double
    /// The allowance carried from the inputs by a non-expanding layer, or nil.
    public var carried: Double?
    /// The deviation the candidate may have (the formula above).
    public var allowed: Double
    /// Which term set `allowed`: "floor", "control", "carried" or "rtol".
    public var allowedBy: String
    /// candidate.maxAbsDeviation <= allowed, or every element over it ill-conditioned.
    public var pass: Bool
    /// For a layer whose largest deviation is over `allowed`: what the conditioning check found (nil for
    /// layers within it, and with --rtol, which replaces the control-based rule).
    public var conditioning: ConditioningFinding?

    /// max |reference| of the layer.
    public var maxAbsReference: Double { candidate.maxAbsReference }
}
