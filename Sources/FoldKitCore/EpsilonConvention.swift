/// The epsilon convention a reader sets on every batch norm it creates (data, not a comment).
public struct EpsilonConvention: Hashable, Sendable, Codable {
    /// The batch-norm epsilon.
    public var epsilon: Double
    /// Where it goes: sqrt(var + eps) or sqrt(var) + eps.
    public var placement: EpsilonPlacement

    /// `epsilon` placed by `placement`.
    public init(epsilon: Double, placement: EpsilonPlacement) {
        self.epsilon = epsilon
        self.placement = placement
    }

    /// AlexeyAB Darknet: sqrt(var + 1e-5). FoldKit's default for Darknet files.
    public static let darknet = EpsilonConvention(epsilon: 1e-5, placement: .insideSqrt)

    /// The per-channel multiplier gamma / sqrt(var + eps) or gamma / (sqrt(var) + eps), in float64.
    public func scale(gamma: Double, variance: Double) -> Double {
        switch placement {
        case .insideSqrt: return gamma / (variance + epsilon).squareRoot()
        case .outsideSqrt: return gamma / (variance.squareRoot() + epsilon)
        }
    }
}
