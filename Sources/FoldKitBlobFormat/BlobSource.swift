/// Where the blobs came from: manifest.json's `source`.
public struct BlobSource: Codable, Equatable, Sendable {
    /// "darknet" or "keras".
    public var format: String
    /// The model files' names.
    public var files: [String]
    /// SHA-256 (hex) of each model file, by name.
    public var sha256: [String: String]
    /// The batch-norm epsilon folded with.
    public var bnEpsilon: Double
    /// "inside" (gamma / sqrt(var + eps)) or "outside" (gamma / (sqrt(var) + eps)).
    public var bnEpsilonMode: String

    /// A source with every field given.
    public init(format: String, files: [String], sha256: [String: String], bnEpsilon: Double, bnEpsilonMode: String) {
        self.format = format
        self.files = files
        self.sha256 = sha256
        self.bnEpsilon = bnEpsilon
        self.bnEpsilonMode = bnEpsilonMode
    }
}
