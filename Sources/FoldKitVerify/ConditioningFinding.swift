/// What the conditioning check (`ConditioningCheck`) found at a layer whose largest deviation is over
/// its allowance: how many of the elements over the allowance are ill-conditioned, that is, deviate by at
/// most K times the spread of the original network's own runs in the same precision there.
///
///     spread_i          = max over runs r of |r_i - reference_i|   (the control and the perturbed runs)
///     ill-conditioned_i = |candidate_i - reference_i| <= K x spread_i, and finite
///
/// The layer passes when every element over its allowance is ill-conditioned: float32 (or float16
/// storage) cannot resolve those elements on this network and input, folded or not (Docs/Verify.md,
/// "Ill-conditioned elements").
public struct ConditioningFinding: Codable, Equatable, Sendable {
    /// One element over the allowance.
    public struct Element: Codable, Equatable, Sendable {
        /// Where it is (channel, row, column).
        public var at: LayerDeviation.Location
        /// |candidate - reference| there, output units (or on the activation's input, see `comparedBefore`).
        public var deviation: Double
        /// The largest |run - reference| there over the original network's runs, in the same units.
        public var spread: Double
    }

    /// Elements whose |candidate - reference| is over the layer's allowance.
    public var elementsOverAllowance: Int
    /// How many of them are ill-conditioned (deviation <= K x spread).
    public var illConditioned: Int
    /// Runs of the original network the spread was measured over: the control and the perturbed runs
    /// (0 when the elements were not examined).
    public var runs: Int
    /// Where the layer's values come out of a logistic or tanh, that activation: deviations and spreads
    /// are then measured on its input (`SaturatingActivation`), since it squeezes large input deviations
    /// into tiny or saturated output ones. nil: measured on the layer's output.
    public var comparedBefore: String?
    /// The element over the allowance with the largest deviation / spread (the least explained one);
    /// nil when the elements were not examined.
    public var leastExplained: Element?
    /// Why the elements were not examined, when they were not.
    public var notExamined: String?

    /// Every element over the allowance examined and ill-conditioned.
    public var excusesLayer: Bool { runs > 0 && notExamined == nil && illConditioned == elementsOverAllowance }
}
