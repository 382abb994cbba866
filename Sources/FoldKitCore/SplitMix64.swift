/// SplitMix64 (Steele, Lea, Flood 2014): the one seeded generator FoldKit uses for synthetic inputs
/// and weights, chosen because it is a few lines in any language, so other tools can reproduce it.
///
///     state += 0x9E3779B97F4A7C15
///     z = state; z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9; z = (z ^ (z >> 27)) * 0x94D049BB133111EB
///     next = z ^ (z >> 31)
///     unit = Double(next >> 11) * 2^-53         (uniform in [0, 1))
package struct SplitMix64: Sendable {
    package private(set) var state: UInt64

    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Uniform in [0, 1) with 53 random bits.
    package mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }

    /// Uniform in [low, high), rounded once to Float.
    package mutating func nextFloat(in low: Double, _ high: Double) -> Float {
        Float(low + (high - low) * nextUnit())
    }
}
