/// How an error in an operation's inputs reaches its output, for operations that cannot make it larger:
/// the output's deviation is at most `gain` times the inputs' (the largest of them, or their sum), in the
/// max norm (Docs/Verify.md, "Tolerance": the carried allowance).
public struct DeviationCarry: Sendable, Equatable {
    /// How the inputs' deviations combine.
    public enum Combination: Sendable, Equatable {
        /// The output takes each value from one input (routes, pools, activations): the largest.
        case largest
        /// The output adds or subtracts its inputs (shortcut, add and subtract merges): the sum.
        case sum
    }

    /// The bound on |f'|, at most 1.
    public var gain: Double
    /// How the inputs combine.
    public var combination: Combination

    /// A carry of `gain` combining the inputs by `combination`.
    public init(gain: Double, combination: Combination) {
        self.gain = gain
        self.combination = combination
    }

    /// `gain` with the largest input, or nil when `gain` is over 1 (an error may grow).
    static func largest(_ gain: Double) -> DeviationCarry? { gain <= 1 ? DeviationCarry(gain: gain, combination: .largest) : nil }

    /// Gain 1, the largest input: routes, pools, reshapes, identities.
    static let unchanged = DeviationCarry(gain: 1, combination: .largest)
}
