import FoldKitCore

/// Darknet activation names (`activation=` in a section) mapped onto FoldKit's `Activation`,
/// following AlexeyAB darknet's `get_activation` and `activations.h`:
///
/// | name | FoldKit | formula |
/// |---|---|---|
/// | linear | .linear | x |
/// | logistic | .logistic | 1/(1+exp(-x)) |
/// | leaky | .leaky(0.1) | x > 0 ? x : 0.1x |
/// | relu | .relu | max(x, 0) |
/// | relu6 | .relu6 | min(max(x, 0), 6) |
/// | tanh | .tanh | tanh(x) |
/// | elu | .elu(1) | x >= 0 ? x : exp(x)-1 |
/// | selu | .darknetSelu | 1.0507 * (x >= 0 ? x : 1.6732 (exp(x)-1)) |
/// | swish | .swish | x * logistic(x) |
/// | mish | .mish | x * tanh(softplus(x)), softplus threshold 20 |
/// | hard_mish | .hardMish | x > 0 ? x : (x > -2 ? x*x/2 + x : 0) |
/// | ramp | .ramp | x * (x > 0) + 0.1 x |
/// | gelu | .gelu | 0.5x(1 + tanh(0.797885x + 0.035677x^3)) |
///
/// Darknet falls back to ReLU (or logistic) for an unknown name with only a warning; FoldKit refuses
/// it instead. Darknet's other activations (loggy, relie, plse, stair, hardtan, lhtan,
/// revleaky, normalize_channels*) are refused as unsupported. There is no `relu2` in darknet.
enum DarknetActivation {
    static func parse(_ name: String) -> Activation? {
        switch name {
        case "linear": return .linear
        case "logistic": return .logistic
        case "leaky": return .leaky(slope: 0.1)
        case "relu": return .relu
        case "relu6": return .relu6
        case "tanh": return .tanh
        case "elu": return .elu(alpha: 1)
        case "selu": return .darknetSelu
        case "swish": return .swish
        case "mish": return .mish
        case "hard_mish": return .hardMish
        case "gelu": return .gelu
        case "ramp": return .ramp
        default: return nil
        }
    }

    static let darknetOnly: Set<String> = [
        "loggy", "relie", "plse", "stair", "hardtan", "lhtan", "revleaky",
        "normalize_channels", "normalize_channels_softmax", "normalize_channels_softmax_maxval",
    ]

    /// The section's `activation=` (or `defaultName` when absent), or an error naming its line.
    static func read(_ context: SectionContext, default defaultName: String) throws -> Activation {
        let section = context.section
        guard let option = section.option("activation") else {
            guard let activation = parse(defaultName) else {
                throw context.error(.unsupported, "default activation '\(defaultName)' is not supported")
            }
            return activation
        }
        if let activation = parse(option.value) { return activation }
        if darknetOnly.contains(option.value) {
            throw context.error(
                .unsupported, "activation '\(option.value)' is not supported by FoldKit", at: option,
                expected: "linear, logistic, leaky, relu, relu6, tanh, elu, selu, swish, mish, hard_mish, gelu or ramp")
        }
        throw context.error(
            .badInput, "unknown activation '\(option.value)'", at: option,
            expected: "linear, logistic, leaky, relu, relu6, tanh, elu, selu, swish, mish, hard_mish, gelu or ramp")
    }
}
