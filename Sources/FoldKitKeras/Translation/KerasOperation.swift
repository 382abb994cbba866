import FoldKitCore

/// The arithmetic Keras models write with operators or `tf.*` / `keras.ops` calls, which Keras saves as
/// layers of their own: tf.keras `TFOpLambda` / `SlicingOpLambda` (the function in `config.function`,
/// e.g. `__operators__.add`, `math.multiply`, `nn.relu6`) and Keras 3 operation layers (class `Add`,
/// `TrueDivide`, `Relu6`, ... of module `keras.src.ops.*`; Keras 3 `.h5` files omit the module).
///
/// Keras 3 operation classes `Add`, `Subtract`, `Multiply`, `Maximum`, `Minimum`, `Concatenate` and `Reshape` share
/// their names with layers: an operation's call passes its operands as separate arguments
/// (`args: [x, 3.0]`), a merge layer's as one list (`args: [[x, y]]`); the `Reshape` operation's config
/// has `newshape`, the layer's `target_shape`.
enum KerasOperation: Equatable {
    case add, subtract, multiply, divide, maximum, minimum
    case activation(String)
    case pad, concatenate, reshape, mean, slice

    /// What a layer entry is, as far as operations go.
    enum Recognition: Equatable {
        case operation(KerasOperation)
        /// An operator layer whose function FoldKit does not run ("TFOpLambda math.exp").
        case unsupported(String)
        case notAnOperation
    }

    /// tf.keras TFOpLambda / SlicingOpLambda functions (`tf.` left off, as tf.keras writes them).
    static let tfFunctions: [String: KerasOperation] = [
        "__operators__.add": .add, "math.add": .add, "__operators__.sub": .subtract, "math.subtract": .subtract,
        "__operators__.mul": .multiply, "math.multiply": .multiply, "__operators__.truediv": .divide, "math.truediv": .divide,
        "math.divide": .divide, "math.maximum": .maximum, "math.minimum": .minimum,
        "nn.relu": .activation("relu"), "nn.relu6": .activation("relu6"), "math.sigmoid": .activation("sigmoid"),
        "nn.sigmoid": .activation("sigmoid"), "sigmoid": .activation("sigmoid"), "math.tanh": .activation("tanh"),
        "nn.tanh": .activation("tanh"), "nn.silu": .activation("silu"), "nn.swish": .activation("silu"), "nn.gelu": .activation("gelu"),
        "compat.v1.pad": .pad, "pad": .pad, "concat": .concatenate, "reshape": .reshape, "math.reduce_mean": .mean,
        "reduce_mean": .mean, "__operators__.getitem": .slice,
    ]

    /// Keras 3 operation classes (keras/src/ops/numpy.py, nn.py).
    static let keras3Classes: [String: KerasOperation] = [
        "Add": .add, "Subtract": .subtract, "Multiply": .multiply, "TrueDivide": .divide, "Divide": .divide, "Maximum": .maximum,
        "Minimum": .minimum, "Relu": .activation("relu"), "Relu6": .activation("relu6"), "Sigmoid": .activation("sigmoid"),
        "Tanh": .activation("tanh"), "Silu": .activation("silu"), "Swish": .activation("silu"), "Gelu": .activation("gelu"),
        "HardSigmoid": .activation("hard_sigmoid"), "HardSilu": .activation("hard_silu"), "HardSwish": .activation("hard_silu"),
        "Pad": .pad, "Reshape": .reshape, "Mean": .mean, "GetItem": .slice, "Concatenate": .concatenate,
    ]

    /// Keras 3 operation classes that are also layer classes.
    private static let layerNames: Set<String> = ["Add", "Subtract", "Multiply", "Maximum", "Minimum", "Reshape", "Concatenate"]

    /// Recognises an operation from a layer entry's class, module, config and (first) call.
    static func recognise(className: String, module: String?, config: KerasJSON?, call: KerasLayerCall?) -> Recognition {
        if className == "TFOpLambda" || className == "SlicingOpLambda" {
            let function = config?["function"]?.string ?? "?"
            return tfFunctions[function].map { .operation($0) } ?? .unsupported("\(className) \(function)")
        }
        let isOpsModule = module?.hasPrefix("keras.src.ops") == true || module?.hasPrefix("keras.ops") == true
        guard isOpsModule || module == nil else { return .notAnOperation }
        guard let operation = keras3Classes[className] else {
            return isOpsModule ? .unsupported("operation \(className) from module '\(module ?? "")'") : .notAnOperation
        }
        if !isOpsModule && layerNames.contains(className) {
            if className == "Reshape" { return config?["newshape"] != nil ? .operation(.reshape) : .notAnOperation }
            // A Keras 3 call with its operands as separate arguments; a merge layer takes one list.
            guard let call, call.isKeras3 else { return .notAnOperation }
            if call.positional.count == 1, case .tensors = call.positional[0] { return .notAnOperation }
            return .operation(operation)
        }
        return .operation(operation)
    }

    static func recognise(_ layer: KerasLayerDescription) -> Recognition {
        recognise(className: layer.className, module: layer.module, config: layer.config, call: layer.call)
    }
}
