/// Softmax. `.perPixelChannels`: over channels at each (y, x) (Keras axis=-1).
/// `.flattened(groups:temperature:)`: over each of `groups` contiguous runs of the channel-major tensor
/// (Darknet [softmax]), of x / temperature as darknet's `softmax` computes it:
/// y_i = exp(x_i / T - max / T) / sum_j exp(x_j / T - max / T).
public enum SoftmaxAxis: Sendable, Hashable, Codable {
    /// Over the channels at each (y, x) (Keras axis -1).
    case perPixelChannels
    /// Over each of `groups` contiguous runs, of x / temperature.
    case flattened(groups: Int, temperature: Float = 1)

    /// The temperature T the inputs are divided by (1 for `.perPixelChannels`).
    public var temperature: Float {
        if case .flattened(_, let temperature) = self { return temperature }
        return 1
    }
}

extension SoftmaxAxis: LayerOperation {
    public var layerKind: LayerKind { .softmax(self) }

    public func typeName(inputShapes: [ActivationShape]) -> String { "softmax" }

    public func outputShape(for inputs: [ActivationShape]) throws -> ActivationShape { inputs[0] }

    public func accumulationLength(inputShapes: [ActivationShape], outputShape: ActivationShape) -> Int { outputShape.count }

    /// The Jacobian of softmax(x / T) is (diag(p) - p p^T) / T, whose max-norm is 2 max p_i (1 - p_i) / T
    /// <= 1 / (2T).
    public var deviationCarry: DeviationCarry? { DeviationCarry.largest(0.5 / Double(temperature)) }

    public var vectorRule: VectorRule { .whenInputsAre }
}
