import FoldKitCore

/// Batch-norm statistics converted to `Scalar`, applied as
/// y = gamma * (x - mean) / denominator + beta, with denominator = sqrt(variance + epsilon) (inside)
/// or sqrt(variance) + epsilon (outside), all computed in `Scalar` precision.
struct PreparedBatchNorm<Scalar: ExecutorScalar> {
    let gamma: [Scalar]
    let beta: [Scalar]
    let mean: [Scalar]
    let denominator: [Scalar]

    init(_ bn: BatchNorm, channels: Int, layer: Layer) throws {
        let mean: [Scalar] = try scalarParameters(bn.mean, count: channels, role: .mean, layer: layer, roundToHalf: false)
        let variance: [Scalar] = try scalarParameters(bn.variance, count: channels, role: .variance, layer: layer, roundToHalf: false)
        self.gamma =
            try bn.gamma.map { try scalarParameters($0, count: channels, role: .gamma, layer: layer, roundToHalf: false) }
            ?? [Scalar](repeating: 1, count: channels)
        self.beta =
            try bn.beta.map { try scalarParameters($0, count: channels, role: .beta, layer: layer, roundToHalf: false) }
            ?? [Scalar](repeating: 0, count: channels)
        self.mean = mean
        let epsilon = Scalar(bn.convention.epsilon)
        switch bn.convention.placement {
        case .insideSqrt: self.denominator = variance.map { ($0 + epsilon).squareRoot() }
        case .outsideSqrt: self.denominator = variance.map { $0.squareRoot() + epsilon }
        }
    }

    /// Normalises channel `c`'s values in place.
    @inline(__always)
    func apply(channel c: Int, to values: UnsafeMutableBufferPointer<Scalar>) {
        let g = gamma[c], m = mean[c], d = denominator[c], b = beta[c]
        for i in values.indices { values[i] = g * (values[i] - m) / d + b }
    }
}
