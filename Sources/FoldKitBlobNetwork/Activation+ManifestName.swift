import FoldKitCore

extension Activation {
    /// The activation a manifest `activation` names (`Activation.name`): the parameter-free ones by name,
    /// "leaky" (slope 0.1) and "leaky(s)", "elu" (alpha 1) and "elu(a)", "selu" (Keras's constants). Nil for
    /// a name that does not say all its parameters (a clipped relu's text).
    package init?(manifestName name: String) {
        let simple: [Activation] = [
            .linear, .relu, .logistic, .tanh, .relu6, .swish, .mish, .hardMish, .ramp, .gelu, .geluErf, .softplus, .hardSigmoid,
            .hardSigmoidRelu6, .hardSwish, .leaky(slope: 0.1), .elu(alpha: 1),
        ]
        if let match = simple.first(where: { $0.name == name }) {
            self = match
            return
        }
        func parameter(_ prefix: String) -> Float? {
            guard name.hasPrefix(prefix + "("), name.hasSuffix(")") else { return nil }
            return Float(name.dropFirst(prefix.count + 1).dropLast())
        }
        if let slope = parameter("leaky") {
            self = .leaky(slope: slope)
        } else if let alpha = parameter("elu") {
            self = .elu(alpha: alpha)
        } else {
            return nil
        }
    }
}
