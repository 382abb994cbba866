import FoldKitCore
import FoldKitDarknet
import FoldKitKeras
import Foundation

/// What the user asked for when reading a model, common to every command.
public struct ModelOptions: Sendable {
    /// `--bn-epsilon`: replaces the reader's epsilon for every batch norm.
    public var epsilon: Double?
    /// `--bn-epsilon-mode`: where the epsilon goes (inside or outside the square root).
    public var epsilonPlacement: EpsilonPlacement?
    /// `--height` / `--width`: run a fully convolutional Darknet network at another input size, or
    /// the size a Keras model leaves undefined (`None`).
    public var inputHeight: Int?
    /// Input width (see `inputHeight`).
    public var inputWidth: Int?

    /// Every option unset: each format's own epsilon and the model's own input size.
    public init(epsilon: Double? = nil, epsilonPlacement: EpsilonPlacement? = nil, inputHeight: Int? = nil, inputWidth: Int? = nil) {
        self.epsilon = epsilon
        self.epsilonPlacement = epsilonPlacement
        self.inputHeight = inputHeight
        self.inputWidth = inputWidth
    }
}
