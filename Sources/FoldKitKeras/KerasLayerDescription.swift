import FoldKitCore
import Foundation

/// One FoldKit-bound Keras layer call, after nested models are flattened (`KerasGraphFlattener`): its
/// unique name, class, config, the layer calls it reads, and where its weights are stored.
struct KerasLayerDescription {
    /// Unique in the flattened model: the Keras name, prefixed by the nested models it sits in
    /// (`mobilenetv2_1.00_96/Conv1`); a second call of a shared layer adds `@1`, a third `@2`, ...
    var name: String
    var className: String
    /// The Python module for Keras 3 configs (`keras.layers`, `keras.src.ops.numpy`), if given.
    var module: String?
    var config: KerasJSON
    /// Names of the layers whose outputs this layer reads, in the order of `call.inputs`.
    var inboundLayers: [String]
    /// The arguments of the call (tensor operands index `inboundLayers`).
    var call = KerasLayerCall()
    /// The Keras layer names from the outermost model down to this layer (`["base", "Conv1"]`): every call
    /// of one layer has the same path, and reads the same weights.
    var weightPath: [String] = []
    /// Where a Keras 3 archive stores the layer's variables (`layers/functional/layers/conv2d`).
    var archivePath: String = ""

    /// `conv2d_1 (Conv2D)`, as errors name a Keras layer.
    var label: String { "\(name) (\(className))" }
}
