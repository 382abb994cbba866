import FoldKitCore

/// Activations (`Activation`, formulas as FoldKit evaluates them: Docs/Activations.md) as LiteRT operators.
/// Where LiteRT has a builtin computing the same function it is used (RELU, LEAKY_RELU, LOGISTIC, TANH,
/// RELU6, ELU for alpha 1, HARD_SWISH, GELU with approximate = false); the others are composed:
///
/// - swish: x * LOGISTIC(x); mish: x * TANH(softplus(x));
/// - softplus: RELU(x) + LOG(1 + EXP(-ABS(x))), which never overflows (EXP of a value <= 0), where
///   log(1 + exp(x)) is infinity above x = 88 in float32; LiteRT has no LOG1P, so 1 + e rounds e below
///   2^-24 away (an absolute error under 6e-8);
/// - elu with alpha != 1: RELU(x) + alpha * (EXP(MINIMUM(x, 0)) - 1); selu: scale * (the same with its alpha);
/// - hard_mish, ramp, gelu (darknet's tanh form and constants), hard_sigmoid_relu6: the composition every
///   engine writer shares (`Activation.composition`), one operator a step;
/// - hard_sigmoid (Keras 2): MINIMUM(MAXIMUM(x * 0.2 + 0.5, 0), 1);
/// - Keras ReLU with max_value and negative_slope (both >= 0): with threshold 0, RELU, or LEAKY_RELU with the
///   slope; with a threshold t, SELECT_V2(GREATER_EQUAL(x, t), x, slope * (x - t)) - Keras's x >= t ? x :
///   slope * (x - t) as it is; then MINIMUM with max_value, which is Keras's x >= max ? max : y as y <= max
///   below max (slope * (x - t) <= 0 <= max there); a threshold above max_value is refused.
extension TFLiteGraphBuilder {
    /// `activation` applied to `x`.
    mutating func activate(_ x: Int, _ activation: Activation) throws -> Int {
        switch activation {
        case .linear: return x
        case .relu: return same(.relu, [x])
        case .leaky(let slope): return same(.leakyRelu, [x], options: .leakyRelu(alpha: slope))
        case .logistic: return same(.logistic, [x])
        case .tanh: return same(.tanh, [x])
        case .relu6: return same(.relu6, [x])
        case .elu(let alpha):
            if alpha == 1 { return same(.elu, [x]) }
            return binary(.add, same(.relu, [x]), binary(.mul, exponentialBelowZero(x), scalar: alpha))
        case .selu(let scale, let alpha):
            let y = binary(.add, same(.relu, [x]), binary(.mul, exponentialBelowZero(x), scalar: Float(alpha)))
            return binary(.mul, y, scalar: Float(scale))
        case .swish: return binary(.mul, x, same(.logistic, [x]))
        case .mish: return binary(.mul, x, same(.tanh, [softplus(x)]))
        case .softplus: return softplus(x)
        case .hardMish: return evaluate(.hardMish, x: x)
        case .ramp: return evaluate(.ramp, x: x)
        case .gelu: return evaluate(.darknetGelu, x: x)
        case .hardSigmoidRelu6: return evaluate(.hardSigmoidRelu6, x: x)
        case .hardSwish: return same(.hardSwish, [x], options: .hardSwish)
        case .geluErf: return same(.gelu, [x], options: .gelu(approximate: false))
        case .hardSigmoid:
            return binary(.minimum, binary(.maximum, affine(x, scale: 0.2, shift: 0.5), scalar: 0), scalar: 1)
        case .clippedRelu(let maxValue, let slope, let threshold):
            guard slope >= 0 && (maxValue ?? 0) >= 0 else {
                throw refuse("ReLU with a negative slope or max_value (Keras requires both >= 0)")
            }
            if let maxValue, threshold > maxValue {
                throw refuse("ReLU with threshold \(threshold) above max_value \(maxValue) (MINIMUM after the threshold would not be Keras's rule)")
            }
            let y: Int
            if threshold == 0 {
                if slope == 0, maxValue == 6 { return same(.relu6, [x]) }
                y = slope == 0 ? same(.relu, [x]) : same(.leakyRelu, [x], options: .leakyRelu(alpha: slope))
            } else {
                let t = scalar(threshold)
                let above = predicate(.greaterEqual, [x, t], shape: shape(x), options: .greaterEqual)
                let below = binary(.mul, binary(.sub, x, t), scalar: slope)
                y = op(.selectV2, [above, x, below], shape: shape(x), options: .selectV2)
            }
            return maxValue.map { binary(.minimum, y, scalar: $0) } ?? y
        }
    }

    /// EXP(MINIMUM(x, 0)) - 1: exp(x) - 1 below 0, exactly 0 above.
    private mutating func exponentialBelowZero(_ x: Int) -> Int {
        binary(.sub, same(.exp, [binary(.minimum, x, scalar: 0)], options: .exp), scalar: 1)
    }

    /// softplus(x) = RELU(x) + LOG(1 + EXP(-ABS(x))).
    private mutating func softplus(_ x: Int) -> Int {
        let negativeMagnitude = same(.neg, [same(.abs, [x], options: .abs)], options: .neg)
        let tail = same(.log, [binary(.add, same(.exp, [negativeMagnitude], options: .exp), scalar: 1)])
        return binary(.add, same(.relu, [x]), tail)
    }

    /// The fused_activation_function computing `activation` exactly, nil when it needs an operator of its own.
    func fused(_ activation: Activation) -> TFLiteOptions.Fused? {
        switch activation {
        case .relu: return .relu
        case .relu6: return .relu6
        case .linear: return TFLiteOptions.Fused.none
        case .leaky, .logistic, .tanh, .elu, .selu, .swish, .mish, .hardMish, .ramp, .gelu, .geluErf, .softplus, .hardSigmoid,
            .hardSigmoidRelu6, .hardSwish, .clippedRelu:
            return nil
        }
    }

    /// `formula` of `x`, one operator a step.
    mutating func evaluate(_ formula: ElementwiseFormula, x: Int) -> Int {
        switch formula {
        case .input: return x
        case .add(let a, let b): return binary(.add, evaluate(a, x: x), evaluate(b, x: x))
        case .multiply(let a, let b): return binary(.mul, evaluate(a, x: x), evaluate(b, x: x))
        case .addConstant(let a, let c): return binary(.add, evaluate(a, x: x), scalar: c)
        case .multiplyConstant(let a, let c): return binary(.mul, evaluate(a, x: x), scalar: c)
        case .divideConstant(let a, let c): return binary(.div, evaluate(a, x: x), scalar: c)
        case .relu(let a): return same(.relu, [evaluate(a, x: x)])
        case .tanh(let a): return same(.tanh, [evaluate(a, x: x)])
        case .clip(let a, let low, let high): return binary(.minimum, binary(.maximum, evaluate(a, x: x), scalar: low), scalar: high)
        }
    }
}
