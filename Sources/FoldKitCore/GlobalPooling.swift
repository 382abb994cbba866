/// Average or maximum over H x W per channel (darknet [avgpool], Keras GlobalAveragePooling2D and
/// GlobalMaxPooling2D): the operation of `LayerKind.globalAveragePool` and `.globalMaxPool`. Output C x 1 x 1.
public struct GlobalPooling: Sendable, Hashable {
    /// The maximum rather than the average.
    public var isMaximum: Bool

    /// Global average pooling, or with `isMaximum` global max pooling.
    public init(isMaximum: Bool) { self.isMaximum = isMaximum }
}

extension GlobalPooling: LayerOperation {
    public var layerKind: LayerKind { isMaximum ? .globalMaxPool : .globalAveragePool }

    public func typeName(inputShapes: [ActivationShape]) -> String { isMaximum ? "global_maxpool" : "global_avgpool" }

    public func outputShape(for inputs: [ActivationShape]) throws -> ActivationShape { .vector(inputs[0].channels) }

    /// The average sums H x W values.
    public func accumulationLength(inputShapes: [ActivationShape], outputShape: ActivationShape) -> Int {
        isMaximum ? 1 : (inputShapes.first?.planeSize ?? 1)
    }

    public var deviationCarry: DeviationCarry? { .unchanged }

    public var vectorRule: VectorRule { .always }
}
