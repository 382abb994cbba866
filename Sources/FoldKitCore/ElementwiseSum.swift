/// Element-wise sum of the inputs, then an activation (Darknet [shortcut], Keras Add).
/// The output has the first input's shape. Darknet semantics when shapes differ: each further input
/// is added over the common channels min(C0, Ci); when spatial sizes differ, input i is sampled with
/// stride (Hi/H0) or the output is strided (H0/Hi), as darknet's `shortcut_cpu`.
public struct ElementwiseSum: Sendable, Hashable {
    /// Applied to the sum.
    public var activation: Activation
    /// A sum followed by `activation`.
    public init(activation: Activation = .linear) { self.activation = activation }
}
