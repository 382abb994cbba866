/// Reinterprets the input's elements with a new shape: the input is flattened in `order`, and the
/// output is filled in `order` (Keras Flatten/Reshape use `.channelsLast`, Darknet `.channelsFirst`).
public struct Reshape: Sendable, Hashable {
    /// The output shape.
    public var target: ActivationShape
    /// The element order of flattening and filling.
    public var order: ElementOrder
    /// A reshape to `target` in `order`.
    public init(target: ActivationShape, order: ElementOrder) {
        self.target = target
        self.order = order
    }
}
