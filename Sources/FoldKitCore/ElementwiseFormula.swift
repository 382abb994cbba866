/// An element-wise function of one tensor x written out in steps every engine writer has (add, multiply,
/// divide, a constant on the right, relu, tanh, clip, ...), in the order FoldKit evaluates them. The engine
/// writers (FoldKitONNX, FoldKitNCNN) lower the activations no engine has as one operator from these
/// formulas, so each engine is given the same composition (Docs/Export.md, "Lowering of each operation").
public enum ElementwiseFormula: Sendable, Equatable {
    /// x itself.
    case input
    /// a + b.
    indirect case add(ElementwiseFormula, ElementwiseFormula)
    /// a * b.
    indirect case multiply(ElementwiseFormula, ElementwiseFormula)
    /// a + c.
    indirect case addConstant(ElementwiseFormula, Float)
    /// a * c.
    indirect case multiplyConstant(ElementwiseFormula, Float)
    /// a / c.
    indirect case divideConstant(ElementwiseFormula, Float)
    /// max(a, 0).
    indirect case relu(ElementwiseFormula)
    /// tanh(a).
    indirect case tanh(ElementwiseFormula)
    /// min(max(a, low), high).
    indirect case clip(ElementwiseFormula, low: Float, high: Float)
}

extension Activation {
    /// The activations with no one-operator form in the engines FoldKit writes, composed from their
    /// definitions (Docs/Activations.md), nil for the others:
    ///
    /// - hard_mish (darknet): x * clip(x * 0.5 + 1, 0, 1), which is x above 0, x*x/2 + x on (-2, 0], 0 below;
    /// - ramp (darknet): relu(x) + x * 0.1;
    /// - gelu (darknet's tanh form, its constants): (x * 0.5) * (tanh(x * 0.797885 + (x * x * x) * 0.035677) + 1);
    /// - hard_sigmoid (Keras 3): clip(x + 3, 0, 6) / 6; hard_swish: x * (clip(x + 3, 0, 6) / 6).
    public var composition: ElementwiseFormula? {
        switch self {
        case .hardMish: return .hardMish
        case .ramp: return .ramp
        case .gelu: return .darknetGelu
        case .hardSigmoidRelu6: return .hardSigmoidRelu6
        case .hardSwish: return .hardSwish
        case .linear, .relu, .leaky, .logistic, .tanh, .relu6, .elu, .selu, .swish, .mish, .geluErf, .softplus, .hardSigmoid, .clippedRelu:
            return nil
        }
    }
}

extension ElementwiseFormula {
    /// hard_mish (darknet): x * clip(x * 0.5 + 1, 0, 1).
    public static let hardMish = ElementwiseFormula.multiply(.input, .clip(.addConstant(.multiplyConstant(.input, 0.5), 1), low: 0, high: 1))
    /// ramp (darknet): relu(x) + x * 0.1.
    public static let ramp = ElementwiseFormula.add(.relu(.input), .multiplyConstant(.input, 0.1))
    /// gelu (darknet's tanh form, its constants): (x * 0.5) * (tanh(x * 0.797885 + (x * x * x) * 0.035677) + 1).
    public static let darknetGelu: ElementwiseFormula = {
        let x = ElementwiseFormula.input
        let cube = ElementwiseFormula.multiply(.multiply(x, x), x)
        let inner = ElementwiseFormula.add(.multiplyConstant(x, 0.797885), .multiplyConstant(cube, 0.035677))
        return .multiply(.multiplyConstant(x, 0.5), .addConstant(.tanh(inner), 1))
    }()
    /// hard_sigmoid (Keras 3): clip(x + 3, 0, 6) / 6.
    public static let hardSigmoidRelu6 = relu6OfXPlus3Over6
    /// hard_swish: x * (clip(x + 3, 0, 6) / 6).
    public static let hardSwish = ElementwiseFormula.multiply(.input, relu6OfXPlus3Over6)

    private static let relu6OfXPlus3Over6 = ElementwiseFormula.divideConstant(.clip(.addConstant(.input, 3), low: 0, high: 6), 6)
}
