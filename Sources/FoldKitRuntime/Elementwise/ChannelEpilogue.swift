import FoldKitCore

/// What follows the matrix product of a convolution or connected layer, per output channel:
/// out = activation(batchNorm(z + bias)).
///
/// One pass per channel: each element gets its bias, batch norm and activation while the channel's
/// values are in cache (the same operations in the same order as three separate passes, so the same
/// results), instead of a bias pass and then an activation pass over the whole tensor.
struct ChannelEpilogue<Scalar: ExecutorScalar> {
    let bias: [Scalar]?
    let batchNorm: PreparedBatchNorm<Scalar>?
    let activation: Activation

    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    func apply(to output: UnsafeMutableBufferPointer<Scalar>, channels: Int, planeSize: Int) {
        if bias == nil && batchNorm == nil {
            ActivationFunction.apply(activation, to: output)
            return
        }
        let perElement = (batchNorm == nil ? 0 : 4) + (ActivationFunction.isTranscendental(activation) ? 20 : 0)
        Parallel.forEach(channels, totalWork: channels * planeSize * perElement) { c in
            apply(channel: c, to: UnsafeMutableBufferPointer(rebasing: output[(c * planeSize)..<((c + 1) * planeSize)]))
        }
    }

    /// The epilogue for values of channel `c` only (any part of its plane): the same operations on each
    /// element as `apply`, for kernels that finish a channel's values piece by piece while they are in cache.
    @inline(__always)
    func apply(channel c: Int, to values: UnsafeMutableBufferPointer<Scalar>) {
        let isLinear: Bool
        if case .linear = activation { isLinear = true } else { isLinear = false }
        if batchNorm == nil, !isLinear, let bias {
            // The common folded case: bias and a cheap activation fused into one loop.
            ChannelEpilogue.biasAndActivation(bias[c], activation, values)
            return
        }
        if let bias {
            let b = bias[c]
            for i in values.indices { values[i] += b }
        }
        batchNorm?.apply(channel: c, to: values)
        if !isLinear { ActivationFunction.applySerial(activation, to: values) }
    }

    /// x = activation(x + b) for one channel; leaky and relu in the same loop as the bias.
    @inline(__always)
    private static func biasAndActivation(_ b: Scalar, _ activation: Activation, _ x: UnsafeMutableBufferPointer<Scalar>) {
        switch activation {
        case .leaky(let slope):
            let s = Scalar(slope)
            for i in x.indices { let v = x[i] + b; x[i] = v > 0 ? v : s * v }
        case .relu:
            for i in x.indices { let v = x[i] + b; x[i] = v > 0 ? v : 0 }
        default:
            for i in x.indices { x[i] += b }
            ActivationFunction.applySerial(activation, to: x)
        }
    }
}
