import FoldKitCore

/// Group normalization over the channels (`GroupNormalization`), in `Scalar`: group g of a C x H x W tensor
/// is the contiguous run of m = n * H * W values x[g, i] (channels g * n ..< (g + 1) * n, n = C / groups,
/// channel-major), normalized on its own in two passes:
///
///     mean[g] = (sum_i x[g, i]) / m
///     sd[g]   = sqrt((sum_i (x[g, i] - mean[g])^2) / m + epsilon)
///     out[c, p] = (x[c, p] - mean[g]) / sd[g] * gamma[c] + beta[c]      (c in group g)
///
/// Sums run over i = 0, 1, ..., m - 1 in order, in `Scalar` as `LayerNormalizationKernel`'s do; groups are
/// shared between the cores.
struct GroupNormalizationKernel<Scalar: ExecutorScalar>: LayerKernel {
    let shape: ActivationShape
    let groups: Int
    /// gamma[c] (ones when the layer has none).
    let gamma: [Scalar]
    /// beta[c] (zeros when the layer has none).
    let beta: [Scalar]
    let epsilon: Scalar

    init(_ normalization: GroupNormalization, shape: ActivationShape, layer: Layer, options: ExecutorOptions) throws {
        let channels = shape.channels
        gamma =
            try normalization.gamma.map {
                try scalarParameters(
                    $0, count: channels, role: .gamma, layer: layer, roundToHalf: options.float16Storage, perturbation: options.perturbation)
            } ?? [Scalar](repeating: 1, count: channels)
        beta =
            try normalization.beta.map {
                try scalarParameters(
                    $0, count: channels, role: .beta, layer: layer, roundToHalf: options.float16Storage, perturbation: options.perturbation)
            } ?? [Scalar](repeating: 0, count: channels)
        epsilon = Scalar(normalization.epsilon)
        groups = normalization.groups
        self.shape = shape
    }

    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    func forward(_ inputs: [[Scalar]], into output: UnsafeMutableBufferPointer<Scalar>, scratch: UnsafeMutableBufferPointer<Scalar>) {
        let plane = shape.planeSize, perGroup = shape.channels / groups
        let length = perGroup * plane
        let count = Scalar(length)
        guard let out = output.baseAddress else { return }
        inputs[0].withUnsafeBufferPointer { source in
            gamma.withUnsafeBufferPointer { gamma in
                beta.withUnsafeBufferPointer { beta in
                    guard let x = source.baseAddress, source.count >= shape.count else { return }
                    Parallel.forRanges(groups, totalWork: shape.count * 8) { range in
                        for g in range {
                            let run = x + g * length
                            var mean: Scalar = 0
                            for i in 0..<length { mean += run[i] }
                            mean /= count
                            var variance: Scalar = 0
                            for i in 0..<length {
                                let d = run[i] - mean
                                variance += d * d
                            }
                            let sd = (variance / count + epsilon).squareRoot()
                            for c in (g * perGroup)..<((g + 1) * perGroup) {
                                let row = x + c * plane, destination = out + c * plane
                                let w = gamma[c], b = beta[c]
                                for p in 0..<plane { destination[p] = (row[p] - mean) / sd * w + b }
                            }
                        }
                    }
                }
            }
        }
    }
}
