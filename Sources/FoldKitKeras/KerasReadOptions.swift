import FoldKitCore
import Foundation

/// Options for `KerasReader.read`.
public struct KerasReadOptions {
    /// Replaces every batch norm's epsilon convention (default: each layer's own Keras epsilon, inside the sqrt).
    public var epsilonOverride: EpsilonConvention?
    /// Input height and width for models whose input size is undefined (`None`), e.g. fully
    /// convolutional detectors. Ignored for sizes the model defines.
    public var inputHeight: Int?
    /// Input width for a model that leaves it undefined (see `inputHeight`).
    public var inputWidth: Int?
    /// What the error for an undefined, unset height/width tells the user to do. A front end puts
    /// its own way of giving the size here (the CLI: its `--height/--width` and `--input` flags).
    public var undefinedSizeAdvice = "set KerasReadOptions.inputHeight/inputWidth"

    /// Each layer's own epsilon and the model's own input size.
    public init(epsilonOverride: EpsilonConvention? = nil, inputHeight: Int? = nil, inputWidth: Int? = nil) {
        self.epsilonOverride = epsilonOverride
        self.inputHeight = inputHeight
        self.inputWidth = inputWidth
    }
}
