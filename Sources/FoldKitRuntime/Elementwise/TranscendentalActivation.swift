import FoldKitCore

/// The activations that need exp, log1p or tanh, evaluated in blocks: the elementary function over a
/// whole block through `VectorMath` (SLEEF / vForce), then the remaining arithmetic in plain loops.
/// Each formulation needs one elementary function per element and cannot overflow (Docs/Activations.md):
///
/// - logistic: t = e^-|x|;  y = 1 / (1 + t) for x >= 0, t / (1 + t) for x < 0
/// - swish:    x * logistic(x) = x / (1 + t) for x >= 0, x * t / (1 + t) for x < 0
/// - mish (Darknet's activations.h, softplus threshold 20): y = x for x > 20, x * e^x for x < -20, else
///   with e = e^x and n = e^2 + 2e: tanh(ln(1 + e)) = n / (n + 2), so y = x * n / (n + 2)
/// - softplus: max(x, 0) + log1p(e^-|x|)
/// - gelu (Darknet): 0.5 x (1 + tanh(u)) with u = 0.797885 x + 0.035677 x^3 equals x / (1 + e^-2u), so
///   with t = e^-2|u|: y = x / (1 + t) for u >= 0, x * t / (1 + t) for u < 0
/// - elu, selu: scale * x for x >= 0, scale * alpha * expm1(x) for x < 0
/// - tanh: tanh(x)
enum TranscendentalActivation {
    /// Elements per block: the block and its temporary stay in L1 cache.
    static let blockSize = 512

    /// Applies `activation` (one of the transcendental ones) to `x` in place; returns false for the others.
    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    static func apply<Scalar: ExecutorScalar>(_ activation: Activation, to x: UnsafeMutableBufferPointer<Scalar>) -> Bool {
        guard ActivationFunction.isTranscendental(activation), let base = x.baseAddress else { return false }
        withUnsafeTemporaryAllocation(of: Scalar.self, capacity: blockSize) { temporary in
            guard let t = temporary.baseAddress else { return }
            var start = 0
            while start < x.count {
                let n = Swift.min(blockSize, x.count - start)
                block(activation, base + start, t, n)
                start += n
            }
        }
        return true
    }

    @inline(__always)
    private static func block<Scalar: ExecutorScalar>(
        _ activation: Activation, _ x: UnsafeMutablePointer<Scalar>,
        _ t: UnsafeMutablePointer<Scalar>, _ n: Int
    ) {
        switch activation {
        case .logistic:
            for i in 0..<n { t[i] = -Swift.abs(x[i]) }
            VectorMath.exponential(t, t, n)
            for i in 0..<n { let e = t[i]; x[i] = (x[i] >= 0 ? 1 : e) / (1 + e) }
        case .swish:
            for i in 0..<n { t[i] = -Swift.abs(x[i]) }
            VectorMath.exponential(t, t, n)
            for i in 0..<n { let v = x[i], e = t[i]; x[i] = (v >= 0 ? v : v * e) / (1 + e) }
        case .mish:
            VectorMath.exponential(x, t, n)
            for i in 0..<n {
                let v = x[i], e = t[i]
                let m = e * (e + 2)
                let inner = v * m / (m + 2)
                x[i] = v > 20 ? v : (v < -20 ? v * e : inner)
            }
        case .softplus:
            for i in 0..<n { t[i] = -Swift.abs(x[i]) }
            VectorMath.exponential(t, t, n)
            VectorMath.logOnePlus(t, t, n)
            for i in 0..<n { let v = x[i]; x[i] = (v > 0 ? v : 0) + t[i] }
        case .gelu:
            let c1 = Scalar(0.797885), c3 = Scalar(0.035677)
            for i in 0..<n { let v = x[i]; t[i] = -2 * Swift.abs(c1 * v + c3 * v * v * v) }
            VectorMath.exponential(t, t, n)
            for i in 0..<n {
                let v = x[i], e = t[i]
                let u = c1 * v + c3 * v * v * v
                x[i] = (u >= 0 ? v : v * e) / (1 + e)
            }
        case .elu(let alpha):
            let a = Scalar(alpha)
            VectorMath.exponentialMinusOne(x, t, n)
            for i in 0..<n { let v = x[i]; x[i] = v >= 0 ? v : a * t[i] }
        case .selu(let scale, let alpha):
            let lambda = Scalar(scale), negative = Scalar(scale * alpha)
            VectorMath.exponentialMinusOne(x, t, n)
            for i in 0..<n { let v = x[i]; x[i] = v >= 0 ? lambda * v : negative * t[i] }
        case .tanh:
            VectorMath.hyperbolicTangent(x, x, n)
        case .linear, .relu, .leaky, .relu6, .hardMish, .ramp, .hardSigmoid, .hardSigmoidRelu6, .hardSwish, .clippedRelu, .geluErf:
            return
        }
    }
}
