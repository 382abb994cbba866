/// How a model's framework refers to its layers (`Network.layerIdentity`).
public enum LayerIdentity: String, Sendable, Codable {
    /// By position: Darknet's [route] and [shortcut] name section indices.
    case index
    /// By the layer's own name: Keras.
    case name
}
