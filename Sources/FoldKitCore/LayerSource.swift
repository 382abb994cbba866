/// Where a layer came from, for error messages and `foldkit inspect`.
public struct LayerSource: Sendable, Hashable, Codable {
    /// The description file (.cfg, .h5, .json, .keras).
    public var file: String
    /// `[convolutional]` for Darknet, the Keras class name (`Conv2D`) for Keras.
    public var section: String
    /// 1-based line of the section header in a .cfg.
    public var line: Int?
    /// Bytes of the weights file this layer's parameters occupy (Darknet).
    public var weightsByteRange: Range<Int>?

    /// A layer read from `section` of `file`.
    public init(file: String, section: String, line: Int? = nil, weightsByteRange: Range<Int>? = nil) {
        self.file = file
        self.section = section
        self.line = line
        self.weightsByteRange = weightsByteRange
    }
}
