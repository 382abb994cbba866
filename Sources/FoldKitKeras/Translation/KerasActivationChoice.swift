import FoldKitCore

/// A Keras activation name decoded: a FoldKit activation, or softmax (which FoldKit runs as its own layer).
enum KerasActivationChoice {
    case plain(Activation)
    case softmax

    /// The layer's own `activation` field (Conv2D, Dense, ...): linear when absent or null.
    static func inline(_ values: KerasLayerConfig, kerasMajor: Int) throws -> KerasActivationChoice {
        guard let value = values["activation"], !value.isNull else { return .plain(.linear) }
        guard let name = value.string ?? value["class_name"]?.string ?? value["config"]?.string else {
            throw values.error(.unsupported, "activation is not a built-in name", found: "\(value)")
        }
        return try named(name, values, kerasMajor: kerasMajor)
    }

    /// Keras built-in activation names. Keras 3 changed hard_sigmoid to relu6(x + 3) / 6 (Keras 1 and 2:
    /// clip(0.2 x + 0.5, 0, 1)), so the file's Keras major version picks the definition.
    static func named(_ name: String, _ values: KerasLayerConfig, kerasMajor: Int) throws -> KerasActivationChoice {
        switch name {
        case "linear": return .plain(.linear)
        case "relu": return .plain(.relu)
        case "relu6": return .plain(.relu6)
        case "sigmoid": return .plain(.logistic)
        case "tanh": return .plain(.tanh)
        case "elu": return .plain(.elu(alpha: 1))
        case "selu": return .plain(.kerasSelu)
        case "softplus": return .plain(.softplus)
        case "swish", "silu": return .plain(.swish)
        case "mish": return .plain(.mish)
        case "leaky_relu": return .plain(.leaky(slope: 0.2))
        case "softmax": return .softmax
        case "hard_sigmoid": return .plain(kerasMajor < 3 ? .hardSigmoid : .hardSigmoidRelu6)
        case "hard_silu", "hard_swish": return .plain(.hardSwish)
        case "gelu": return .plain(.geluErf)
        default:
            throw values.error(.unsupported, "activation '\(name)' is not supported")
        }
    }
}
