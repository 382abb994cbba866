import FoldKitCore

/// One layer entry of a model config with all its calls; `nested` holds the graph of a model used as a layer.
struct KerasLayerEntry {
    var name: String
    var className: String
    var module: String?
    var config: KerasJSON
    /// Per call (inbound node), the tensors it reads in argument order.
    var calls: [KerasLayerCall]
    var nested: KerasModelGraph?
}
