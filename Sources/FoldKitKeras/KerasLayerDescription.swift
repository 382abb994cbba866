import FoldKitCore
import Foundation

/// One Keras layer from the model description: its name, class, config and the layers it reads.
struct KerasLayerDescription {
    var name: String
    var className: String
    /// The Python module for Keras 3 configs (`keras.layers`, `qkeras.qlayers`), if given.
    var module: String?
    var config: KerasJSON
    /// Names of the layers whose outputs this layer reads, in argument order.
    var inboundLayers: [String]

    /// `conv2d_1 (Conv2D)`, as errors name a Keras layer.
    var label: String { "\(name) (\(className))" }
}
