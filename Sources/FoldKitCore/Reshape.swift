/// Reinterprets the input's elements with a new shape: the input is flattened in `order`, and the
/// output is filled in `order` (Keras Flatten/Reshape use `.channelsLast`, Darknet `.channelsFirst`).
public struct Reshape: Sendable, Hashable {
    public var target: ActivationShape
    public var order: ElementOrder
    public init(target: ActivationShape, order: ElementOrder) {
        self.target = target
        self.order = order
    }
}
