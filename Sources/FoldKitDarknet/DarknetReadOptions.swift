import FoldKitCore
import Foundation

/// Options for reading a Darknet network.
public struct DarknetReadOptions: Sendable {
    /// The batch-norm convention set on every batch norm and on `Network.epsilonConvention`
    /// (default AlexeyAB darknet's sqrt(var + 1e-5)).
    public var epsilon: EpsilonConvention = .darknet
    /// Overrides [net] height= (the network is fully convolutional in height for most YOLOs).
    public var inputHeight: Int? = nil
    /// Overrides [net] width=.
    public var inputWidth: Int? = nil

    /// Darknet's epsilon convention and the cfg's own input size unless told otherwise.
    public init(epsilon: EpsilonConvention = .darknet, inputHeight: Int? = nil, inputWidth: Int? = nil) {
        self.epsilon = epsilon
        self.inputHeight = inputHeight
        self.inputWidth = inputWidth
    }
}
