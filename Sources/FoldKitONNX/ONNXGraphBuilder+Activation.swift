import FoldKitCore

/// Activations (`Activation`, formulas as FoldKit evaluates them: Docs/Activations.md) as onnx operators.
/// Where onnx has the operator with the same formula it is used (Relu, LeakyRelu, Sigmoid, Tanh, Elu,
/// Selu, Softplus, HardSigmoid, Mish from opset 18); the others are composed from the formula as written,
/// in the same order of operations:
///
/// - relu6: Clip(x, 0, 6); swish: x * Sigmoid(x); mish below opset 18: x * Tanh(Softplus(x));
/// - hard_mish (darknet): x * Clip(x/2 + 1, 0, 1), which is x for x > 0, x*x/2 + x for -2 < x <= 0, 0 below;
/// - ramp (darknet): Relu(x) + 0.1 x;
/// - gelu (darknet's tanh form): 0.5 x (1 + Tanh(0.797885 x + 0.035677 x^3));
/// - gelu_erf (Keras): 0.5 x (1 + Erf(x / sqrt 2));
/// - hard_sigmoid_relu6 (Keras 3): Clip(x + 3, 0, 6) / 6; hard_swish: x * (Clip(x + 3, 0, 6) / 6);
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
        case .hardMish:
            let half = node("Mul", [x, scalar(0.5)])
            return node("Mul", [x, clip(node("Add", [half, scalar(1)]), 0, 1)])
        case .ramp:
            return node("Add", [node("Relu", [x]), node("Mul", [x, scalar(0.1)])])
        case .gelu:
            let cube = node("Mul", [node("Mul", [x, x]), x])
            let inner = node("Add", [node("Mul", [x, scalar(0.797885)]), node("Mul", [cube, scalar(0.035677)])])
            let onePlus = node("Add", [node("Tanh", [inner]), scalar(1)])
            return node("Mul", [node("Mul", [x, scalar(0.5)]), onePlus])
        case .geluErf:
            let erf = node("Erf", [node("Mul", [x, scalar(Float(0.5.squareRoot()))])])
            return node("Mul", [node("Mul", [x, scalar(0.5)]), node("Add", [erf, scalar(1)])])
        case .softplus:
            return node("Softplus", [x])
        case .hardSigmoid:
            return node("HardSigmoid", [x], [ONNXAttribute.float("alpha", 0.2), ONNXAttribute.float("beta", 0.5)])
        case .hardSigmoidRelu6:
            return node("Div", [clip(node("Add", [x, scalar(3)]), 0, 6), scalar(6)])
        case .hardSwish:
            return node("Mul", [x, node("Div", [clip(node("Add", [x, scalar(3)]), 0, 6), scalar(6)])])
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

    /// Clip(x, low, high) with scalar bounds of the graph's element type.
    mutating func clip(_ x: String, _ low: Float, _ high: Float) -> String {
        node("Clip", [x, scalar(low, hint: "min"), scalar(high, hint: "max")])
    }
}
