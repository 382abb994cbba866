import FoldKitCore

/// Activations (`Activation`, formulas as FoldKit evaluates them: Docs/Activations.md) as ncnn layers.
/// Where ncnn has a layer computing the same function it is used (ReLU with its slope, Sigmoid, TanH, Clip,
/// ELU, SELU, Swish, Mish, GELU's erf form, HardSigmoid); the others are composed:
///
/// - hard_mish, ramp, gelu (darknet's tanh form and constants), hard_sigmoid_relu6 and hard_swish (Keras 3):
///   the composition every engine writer shares (`Activation.composition`), one BinaryOp, ReLU, TanH or
///   Clip a step;
/// - softplus: ReLU(x) + log1p(exp(-|x|)) with UnaryOp, FoldKit's own form: ncnn's Softplus layer computes
///   log(exp(x) + 1), which is infinity above x = 88;
/// - Keras ReLU with max_value and negative_slope (Keras requires both >= 0): ReLU (with the slope) then
///   min(y, max) (a BinaryOp), which is Keras's x >= max ? max : y as y <= max below max. With a threshold t,
///   ncnn having no comparison: a mask m = ceil((sign(x - t) + 1) / 2) (1 where x >= t, else 0; sign(0) = 0
///   gives ceil(0.5) = 1), then m * max(x, t) + (1 - m) * (slope * (min(x, t) - t)): each term is exactly
///   the chosen value or 0 (never 0 * infinity: the unchosen side is computed on t), so the sum is exact.
extension NCNNGraphBuilder {
    /// `activation` applied to `x`.
    mutating func activate(_ x: String, _ activation: Activation) throws -> String {
        switch activation {
        case .linear:
            return x
        case .relu:
            return op("ReLU", [x])
        case .leaky(let slope):
            return op("ReLU", [x], [(0, .float(slope))])
        case .logistic:
            return op("Sigmoid", [x])
        case .tanh:
            return op("TanH", [x])
        case .relu6:
            return op("Clip", [x], [(0, .float(0)), (1, .float(6))])
        case .elu(let alpha):
            return op("ELU", [x], [(0, .float(alpha))])
        case .selu(let scale, let alpha):
            return op("SELU", [x], [(0, .float(Float(alpha))), (1, .float(Float(scale)))])
        case .swish:
            return op("Swish", [x])
        case .mish:
            return op("Mish", [x])
        case .hardMish: return evaluate(.hardMish, x: x)
        case .ramp: return evaluate(.ramp, x: x)
        case .gelu: return evaluate(.darknetGelu, x: x)
        case .hardSigmoidRelu6: return evaluate(.hardSigmoidRelu6, x: x)
        case .hardSwish: return evaluate(.hardSwish, x: x)
        case .geluErf:
            // 0.5 x erfc(-x / sqrt 2), which is 0.5 x (1 + erf(x / sqrt 2)).
            return op("GELU", [x], [(0, .int(0))])
        case .softplus:
            let tail = unary(unary(unary(unary(x, UnaryOperation.absolute), UnaryOperation.negate), UnaryOperation.exp), UnaryOperation.log1p)
            return binary(op("ReLU", [x]), tail, BinaryOperation.add)
        case .hardSigmoid:
            return op("HardSigmoid", [x], [(0, .float(0.2)), (1, .float(0.5))])
        case .clippedRelu(let maxValue, let slope, let threshold):
            guard slope >= 0 && (maxValue ?? 0) >= 0 else {
                throw refuse("ReLU with a negative slope or max_value (Keras requires both >= 0; min(y, max) would not be Keras's rule)")
            }
            if threshold == 0, slope == 0, let maxValue { return op("Clip", [x], [(0, .float(0)), (1, .float(maxValue))]) }
            var y: String
            if threshold == 0 {
                y = slope == 0 ? op("ReLU", [x]) : op("ReLU", [x], [(0, .float(slope))])
            } else {
                let sign = unary(binary(x, BinaryOperation.subtract, scalar: threshold), UnaryOperation.sign)
                let mask = unary(binary(binary(sign, BinaryOperation.add, scalar: 1), BinaryOperation.multiply, scalar: 0.5), UnaryOperation.ceil)
                y = binary(mask, binary(x, BinaryOperation.maximum, scalar: threshold), BinaryOperation.multiply)
                if slope != 0 {
                    let below = binary(
                        binary(binary(x, BinaryOperation.minimum, scalar: threshold), BinaryOperation.subtract, scalar: threshold),
                        BinaryOperation.multiply, scalar: slope)
                    let other = binary(mask, BinaryOperation.reverseSubtract, scalar: 1)
                    y = binary(y, binary(other, below, BinaryOperation.multiply), BinaryOperation.add)
                }
            }
            return maxValue.map { binary(y, BinaryOperation.minimum, scalar: $0) } ?? y
        }
    }

    /// The params fusing `activation` into Convolution, ConvolutionDepthWise, Deconvolution or
    /// InnerProduct (9=activation_type, 10=activation_params: 1 relu, 2 leaky with its slope, 3 clip 0..6),
    /// nil when it is applied by a layer of its own after.
    func fused(_ activation: Activation) -> [(Int, NCNNParam)]? {
        switch activation {
        case .relu: return [(9, .int(1))]
        case .leaky(let slope): return [(9, .int(2)), (10, .floats([slope]))]
        case .relu6: return [(9, .int(3)), (10, .floats([0, 6]))]
        case .linear, .logistic, .tanh, .elu, .selu, .swish, .mish, .hardMish, .ramp, .gelu, .geluErf, .softplus, .hardSigmoid,
            .hardSigmoidRelu6, .hardSwish, .clippedRelu:
            return nil
        }
    }

    /// `formula` of `x`, one layer a step.
    mutating func evaluate(_ formula: ElementwiseFormula, x: String) -> String {
        switch formula {
        case .input: return x
        case .add(let a, let b): return binary(evaluate(a, x: x), evaluate(b, x: x), BinaryOperation.add)
        case .multiply(let a, let b): return binary(evaluate(a, x: x), evaluate(b, x: x), BinaryOperation.multiply)
        case .addConstant(let a, let c): return binary(evaluate(a, x: x), BinaryOperation.add, scalar: c)
        case .multiplyConstant(let a, let c): return binary(evaluate(a, x: x), BinaryOperation.multiply, scalar: c)
        case .divideConstant(let a, let c): return binary(evaluate(a, x: x), BinaryOperation.divide, scalar: c)
        case .relu(let a): return op("ReLU", [evaluate(a, x: x)])
        case .tanh(let a): return op("TanH", [evaluate(a, x: x)])
        case .clip(let a, let low, let high): return op("Clip", [evaluate(a, x: x)], [(0, .float(low)), (1, .float(high))])
        }
    }
}
