/// What a reader learned about the model beyond its layers: facts reports print and a few that change how
/// the network is used (darknet's `letter_box`). Every field is nil when the format has no such fact.
///
/// `entries` is the report form (`foldkit inspect`, its `--json` `metadata` object): one string per fact
/// set, under the key the format uses for it (`letter_box`, `weightsVersion`, `keras_version`, ...).
public struct NetworkMetadata: Sendable, Codable, Equatable {
    /// Darknet `[net] letter_box` as written: 1 when darknet's detector fits an image to the input with
    /// `letterbox_image` (aspect kept, grey bars), otherwise it stretches it.
    public var letterBox: Int?
    /// Darknet `.weights` header: major.minor.revision ("0.2.5").
    public var weightsVersion: String?
    /// Darknet `.weights` header: images seen in training.
    public var seen: UInt64?
    /// Darknet `.weights` header size in bytes (16 or 20).
    public var headerBytes: Int?
    /// Darknet: the float32 values read after the header.
    public var weightsFloats: Int?
    /// Keras: the version that saved the file ("unknown" when it says none).
    public var kerasVersion: String?
    /// Keras: the backend that saved the file ("tensorflow", "theano", ... or "unknown").
    public var backend: String?
    /// Keras: the model's class (`Functional`, `Sequential`, `Model`).
    public var modelClass: String?
    /// Keras: what the model was read from (an `.h5` with its config, a `.keras` archive, JSON + weights).
    public var fileKind: String?
    /// Keras: `channels_first` or `channels_last`.
    public var dataFormat: String?
    /// Keras: the kernels were Theano's (convolution, not cross-correlation) and were rotated by 180 degrees.
    public var theanoKernelsRotated: Bool
    /// Keras `.keras` archive: the weights entry read (`model.weights.h5`).
    public var weightsEntry: String?

    /// No facts.
    public init() {
        theanoKernelsRotated = false
    }

    /// The facts set, as report strings under the format's own keys.
    public var entries: [String: String] {
        var entries: [String: String] = [:]
        entries["letter_box"] = letterBox.map(String.init)
        entries["weightsVersion"] = weightsVersion
        entries["seen"] = seen.map(String.init)
        entries["headerBytes"] = headerBytes.map(String.init)
        entries["weightsFloats"] = weightsFloats.map(String.init)
        entries["keras_version"] = kerasVersion
        entries["backend"] = backend
        entries["model_class"] = modelClass
        entries["file_kind"] = fileKind
        entries["data_format"] = dataFormat
        if theanoKernelsRotated { entries["kernels"] = "Theano (rotated by 180 degrees for cross-correlation)" }
        entries["weights_entry"] = weightsEntry
        return entries
    }
}
