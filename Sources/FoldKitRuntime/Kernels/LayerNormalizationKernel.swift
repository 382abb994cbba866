import FoldKitCore

/// Layer normalization over the channels (`LayerNormalization`), in `Scalar`, at every position p = (y, x)
/// of a C x H x W tensor on its own, two passes over the channels:
///
///     mean[p] = (sum_c x[c, p]) / C
///     sd[p]   = sqrt((sum_c (x[c, p] - mean[p])^2) / C + epsilon)
///     out[c, p] = (x[c, p] - mean[p]) / sd[p] * gamma[c] + beta[c]
///
/// Sums run over c = 0, 1, ..., C - 1 in order. Channels are walked outside and positions inside (each
/// plane is contiguous), with mean and sd of a range of positions in the scratch; ranges of positions are
/// shared between the cores.
struct LayerNormalizationKernel<Scalar: ExecutorScalar>: LayerKernel {
    let shape: ActivationShape
    /// gamma[c] (ones when the layer has none).
    let gamma: [Scalar]
    /// beta[c] (zeros when the layer has none).
    let beta: [Scalar]
    let epsilon: Scalar

    init(_ normalization: LayerNormalization, shape: ActivationShape, layer: Layer, options: ExecutorOptions) throws {
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
        self.shape = shape
    }

    /// The mean and sd of every position.
    var scratchCount: Int { Self.scratchCount(shape: shape) }

    /// Scratch elements of a layer normalization over `shape`, known before it is prepared (`MemoryPlan`).
    static func scratchCount(shape: ActivationShape) -> Int { 2 * shape.planeSize }

    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    func forward(_ inputs: [[Scalar]], into output: UnsafeMutableBufferPointer<Scalar>, scratch: UnsafeMutableBufferPointer<Scalar>) {
        let plane = shape.planeSize, channels = shape.channels
        let count = Scalar(channels)
        guard let out = output.baseAddress, let work = scratch.baseAddress, scratch.count >= 2 * plane else { return }
        inputs[0].withUnsafeBufferPointer { source in
            gamma.withUnsafeBufferPointer { gamma in
                beta.withUnsafeBufferPointer { beta in
                    guard let x = source.baseAddress, source.count >= shape.count else { return }
                    let mean = work, sd = work + plane
                    Parallel.forRanges(plane, totalWork: shape.count * 8) { range in
                        for p in range { mean[p] = 0 }
                        for c in 0..<channels {
                            let row = x + c * plane
                            for p in range { mean[p] += row[p] }
                        }
                        for p in range {
                            mean[p] /= count
                            sd[p] = 0
                        }
                        for c in 0..<channels {
                            let row = x + c * plane
                            for p in range {
                                let d = row[p] - mean[p]
                                sd[p] += d * d
                            }
                        }
                        for p in range { sd[p] = (sd[p] / count + epsilon).squareRoot() }
                        for c in 0..<channels {
                            let row = x + c * plane, destination = out + c * plane
                            let g = gamma[c], b = beta[c]
                            for p in range { destination[p] = (row[p] - mean[p]) / sd[p] * g + b }
                        }
                    }
                }
            }
        }
    }
}
