import FoldKitCore

/// Element-wise activations, in place, with the formulas documented on `Activation`
/// (Darknet's activations.h, Keras' backend), computed in `Scalar`; the ones that need exp, log1p or
/// tanh go through `TranscendentalActivation` (vector evaluation, Docs/Activations.md).
enum ActivationFunction {
    /// Whether the activation calls exp/tanh/log (worth spreading over cores on large tensors).
    static func isTranscendental(_ activation: Activation) -> Bool {
        switch activation {
        case .linear, .relu, .leaky, .relu6, .hardMish, .ramp, .hardSigmoid, .hardSigmoidRelu6, .hardSwish, .clippedRelu: return false
        case .logistic, .tanh, .elu, .selu, .swish, .mish, .gelu, .geluErf, .softplus: return true
        }
    }

    /// Applies `activation` to every element of `buffer`.
    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    static func apply<Scalar: ExecutorScalar>(_ activation: Activation, to buffer: UnsafeMutableBufferPointer<Scalar>) {
        if case .linear = activation { return }
        // Cheap activations are bandwidth-bound: one pass on this thread (see `Parallel`).
        let work = isTranscendental(activation) ? buffer.count * 20 : 0
        Parallel.forRanges(buffer.count, totalWork: work) { range in
            applySerial(activation, to: UnsafeMutableBufferPointer(rebasing: buffer[range]))
        }
    }

    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    static func applySerial<Scalar: ExecutorScalar>(_ activation: Activation, to x: UnsafeMutableBufferPointer<Scalar>) {
        switch activation {
        case .linear:
            return
        case .relu:
            for i in x.indices where !(x[i] > 0) { x[i] = 0 }
        case .leaky(let slope):
            let s = Scalar(slope)
            for i in x.indices { let v = x[i]; x[i] = v > 0 ? v : s * v }
        case .hardMish:
            for i in x.indices {
                let v = x[i]
                x[i] = v > 0 ? v : (v > -2 ? v * v / 2 + v : 0)
            }
        case .ramp:
            // darknet's x*(x>0) + .1f*x, in that order.
            let s = Scalar(Float(0.1))
            for i in x.indices { let v = x[i]; x[i] = (v > 0 ? v : 0) + s * v }
        case .logistic, .tanh, .elu, .selu, .swish, .mish, .gelu, .softplus:
            _ = TranscendentalActivation.apply(activation, to: x)
        case .relu6:
            for i in x.indices { x[i] = Swift.min(Swift.max(x[i], 0), 6) }
        case .hardSigmoid:
            for i in x.indices { x[i] = Swift.min(Swift.max(Scalar(0.2) * x[i] + Scalar(0.5), 0), 1) }
        case .hardSigmoidRelu6:
            for i in x.indices { x[i] = Swift.min(Swift.max(x[i] + 3, 0), 6) / 6 }
        case .hardSwish:
            for i in x.indices { let v = x[i]; x[i] = v * (Swift.min(Swift.max(v + 3, 0), 6) / 6) }
        case .geluErf:
            // Scalar erf (libm's erff / erf): no vector erf in the vector math library used here.
            let rootHalf = Scalar(0.5.squareRoot())
            for i in x.indices { let v = x[i]; x[i] = Scalar(0.5) * v * (1 + Scalar.errorFunction(v * rootHalf)) }
        case .clippedRelu(let maxValue, let negativeSlope, let threshold):
            let slope = Scalar(negativeSlope), t = Scalar(threshold)
            let m = maxValue.map { Scalar($0) } ?? .infinity
            for i in x.indices {
                let v = x[i]
                x[i] = v >= m ? m : (v >= t ? v : slope * (v - t))
            }
        }
    }
}
