/// An element-wise activation function. Formulas follow Darknet's `activations.h` and Keras' backend.
public enum Activation: Hashable, Sendable, Codable {
    /// f(x) = x
    case linear
    /// f(x) = max(x, 0)
    case relu
    /// f(x) = x > 0 ? x : slope * x (Darknet's leaky uses slope 0.1)
    case leaky(slope: Float)
    /// f(x) = 1 / (1 + exp(-x)) (Darknet "logistic", Keras "sigmoid")
    case logistic
    /// f(x) = tanh(x)
    case tanh
    /// f(x) = min(max(x, 0), 6)
    case relu6
    /// f(x) = x >= 0 ? x : alpha * (exp(x) - 1)
    case elu(alpha: Float)
    /// f(x) = scale * (x >= 0 ? x : alpha * (exp(x) - 1)). Keras uses scale 1.0507009873554805 and
    /// alpha 1.6732632423543772 (`.kerasSelu`); Darknet's activations.h rounds them to 1.0507 and 1.6732 (`.darknetSelu`).
    case selu(scale: Double, alpha: Double)
    /// f(x) = x * logistic(x)
    case swish
    /// f(x) = x * tanh(softplus(x)), softplus(x) = x > 20 ? x : (x < -20 ? exp(x) : log1p(exp(x))) as Darknet
    case mish
    /// Darknet hard_mish: x > 0 ? x : (x > -2 ? x*x/2 + x : 0)
    case hardMish
    /// Darknet ramp: x * (x > 0) + 0.1 * x (1.1 x above 0, 0.1 x below; strided.cfg)
    case ramp
    /// f(x) = 0.5 * x * (1 + tanh(0.797885 x + 0.035677 x^3)), Darknet's gelu with its constants
    /// (the tanh approximation).
    case gelu
    /// f(x) = 0.5 * x * (1 + erf(x / sqrt(2))), Keras' gelu (`approximate=False`, its default).
    case geluErf
    /// f(x) = log(1 + exp(x))
    case softplus
    /// Keras 1 and 2 hard_sigmoid: clip(0.2 x + 0.5, 0, 1)
    case hardSigmoid
    /// Keras 3 hard_sigmoid: relu6(x + 3) / 6
    case hardSigmoidRelu6
    /// Keras 3 hard_silu / hard_swish (MobileNetV3's hard swish): x * relu6(x + 3) / 6
    case hardSwish
    /// Keras ReLU layer: x >= maxValue ? maxValue : (x >= threshold ? x : negativeSlope * (x - threshold)).
    case clippedRelu(maxValue: Float?, negativeSlope: Float, threshold: Float)

    /// The Darknet / Keras spelling, for reports.
    public var name: String {
        switch self {
        case .linear: return "linear"
        case .relu: return "relu"
        case .leaky(let s): return s == 0.1 ? "leaky" : "leaky(\(s))"
        case .logistic: return "logistic"
        case .tanh: return "tanh"
        case .relu6: return "relu6"
        case .elu(let a): return a == 1 ? "elu" : "elu(\(a))"
        case .selu: return "selu"
        case .swish: return "swish"
        case .mish: return "mish"
        case .hardMish: return "hard_mish"
        case .ramp: return "ramp"
        case .gelu: return "gelu"
        case .geluErf: return "gelu_erf"
        case .softplus: return "softplus"
        case .hardSigmoid: return "hard_sigmoid"
        case .hardSigmoidRelu6: return "hard_sigmoid_relu6"
        case .hardSwish: return "hard_swish"
        case .clippedRelu(let m, let s, let t): return "relu(max=\(m.map { "\($0)" } ?? "none"), slope=\(s), threshold=\(t))"
        }
    }

    /// SELU with Keras' (exact) constants.
    package static let kerasSelu = Activation.selu(scale: 1.0507009873554805, alpha: 1.6732632423543772)
    /// SELU with the constants of Darknet's activations.h: (x >= 0)*1.0507*x + (x < 0)*1.0507*1.6732*(exp(x)-1).
    package static let darknetSelu = Activation.selu(scale: 1.0507, alpha: 1.6732)
}

extension Activation: LayerOperation {
    public var layerKind: LayerKind { .activation(self) }

    public func typeName(inputShapes: [ActivationShape]) -> String { name }

    public func outputShape(for inputs: [ActivationShape]) throws -> ActivationShape { inputs[0] }

    public func describe(into description: inout LayerDescription) { description.activation = name }

    public var finalActivation: Activation? { self }

    public var deviationCarry: DeviationCarry? { lipschitzBound.flatMap { DeviationCarry.largest($0) } }

    public var vectorRule: VectorRule { .whenInputsAre }

    /// sup |f'(x)| when it is at most 1; nil when it can exceed 1 (selu, swish, mish, gelu, hard_swish, ramp,
    /// a leaky or elu slope over 1).
    public var lipschitzBound: Double? {
        let bound: Double
        switch self {
        case .linear, .relu, .relu6, .tanh, .hardMish: bound = 1
        case .leaky(let slope): bound = max(1, abs(Double(slope)))
        case .logistic: bound = 0.25
        case .softplus: bound = 1
        case .hardSigmoid: bound = 0.2
        case .hardSigmoidRelu6: bound = 1.0 / 6
        case .elu(let alpha): bound = max(1, abs(Double(alpha)))
        case .clippedRelu(_, let slope, _): bound = max(1, abs(Double(slope)))
        case .selu, .swish, .mish, .gelu, .geluErf, .hardSwish, .ramp: return nil
        }
        return bound <= 1 ? bound : nil
    }
}
