import FoldKitCore

/// Activations (`Activation`, formulas as FoldKit evaluates them: Docs/Activations.md) as onnx operators.
/// Where onnx has the operator with the same formula it is used (Relu, LeakyRelu, Sigmoid, Tanh, Elu,
/// Selu, Softplus, HardSigmoid, Mish from opset 18); the others are composed from the formula as written,
/// in the same order of operations:
///
/// - relu6: Clip(x, 0, 6); swish: x * Sigmoid(x); mish below opset 18: x * Tanh(Softplus(x));
/// - hard_mish, ramp, gelu (darknet's tanh form), hard_sigmoid_relu6 and hard_swish (Keras 3): the
///   composition every engine writer shares (`Activation.composition`, FoldKitCore), each step one node;
/// - gelu_erf (Keras): 0.5 x (1 + Erf(x / sqrt 2));
/// - clipped relu (Keras ReLU with max_value, negative_slope, threshold):
///   Where(x >= max, max, Where(x >= threshold, x, slope * (x - threshold))).
extension ONNXGraphBuilder {
    /// `activation` applied to `x`.
    mutating func activate(_ x: String, _ activation: Activation) -> String {
        switch activation {
        case .linear:
            return x
        case .relu:
            return node("Relu", [x])
        case .leaky(let slope):
            return node("LeakyRelu", [x], [ONNXAttribute.float("alpha", slope)])
        case .logistic:
            return node("Sigmoid", [x])
        case .tanh:
            return node("Tanh", [x])
        case .relu6:
            return clip(x, 0, 6)
        case .elu(let alpha):
            return node("Elu", [x], [ONNXAttribute.float("alpha", alpha)])
        case .selu(let scale, let alpha):
            return node("Selu", [x], [ONNXAttribute.float("alpha", Float(alpha)), ONNXAttribute.float("gamma", Float(scale))])
        case .swish:
            return node("Mul", [x, node("Sigmoid", [x])])
        case .mish:
            if opset >= 18 { return node("Mish", [x]) }
            return node("Mul", [x, node("Tanh", [node("Softplus", [x])])])
        case .hardMish: return evaluate(.hardMish, x: x)
        case .ramp: return evaluate(.ramp, x: x)
        case .gelu: return evaluate(.darknetGelu, x: x)
        case .hardSigmoidRelu6: return evaluate(.hardSigmoidRelu6, x: x)
        case .hardSwish: return evaluate(.hardSwish, x: x)
        case .geluErf:
            let erf = node("Erf", [node("Mul", [x, scalar(Float(0.5.squareRoot()))])])
            return node("Mul", [node("Mul", [x, scalar(0.5)]), node("Add", [erf, scalar(1)])])
        case .softplus:
            return node("Softplus", [x])
        case .hardSigmoid:
            return node("HardSigmoid", [x], [ONNXAttribute.float("alpha", 0.2), ONNXAttribute.float("beta", 0.5)])
        case .clippedRelu(let maxValue, let slope, let threshold):
            if slope == 0 && threshold == 0 { return maxValue.map { clip(x, 0, $0) } ?? node("Relu", [x]) }
            let t = scalar(threshold, hint: "threshold")
            let below = node("Mul", [node("Sub", [x, t]), scalar(slope, hint: "slope")])
            var y = node("Where", [node("GreaterOrEqual", [x, t]), x, below])
            if let maxValue {
                let m = scalar(maxValue, hint: "max")
                y = node("Where", [node("GreaterOrEqual", [x, m]), m, y])
            }
            return y
        }
    }

    /// `formula` of `x`, one node a step (constants as scalars of the graph's element type).
    mutating func evaluate(_ formula: ElementwiseFormula, x: String) -> String {
        switch formula {
        case .input: return x
        case .add(let a, let b): return node("Add", [evaluate(a, x: x), evaluate(b, x: x)])
        case .multiply(let a, let b): return node("Mul", [evaluate(a, x: x), evaluate(b, x: x)])
        case .addConstant(let a, let c): return node("Add", [evaluate(a, x: x), scalar(c)])
        case .multiplyConstant(let a, let c): return node("Mul", [evaluate(a, x: x), scalar(c)])
        case .divideConstant(let a, let c): return node("Div", [evaluate(a, x: x), scalar(c)])
        case .relu(let a): return node("Relu", [evaluate(a, x: x)])
        case .tanh(let a): return node("Tanh", [evaluate(a, x: x)])
        case .clip(let a, let low, let high): return clip(evaluate(a, x: x), low, high)
        }
    }

    /// Clip(x, low, high) with scalar bounds of the graph's element type.
    mutating func clip(_ x: String, _ low: Float, _ high: Float) -> String {
        node("Clip", [x, scalar(low, hint: "min"), scalar(high, hint: "max")])
    }
}
