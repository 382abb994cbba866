/// Why a blob folder could not be loaded: what is wrong, the file, and the expected and found values.
///
/// `description` reads "conv0_W.bin: size differs from the manifest (expected 1728 bytes, found 1724 bytes)".
public struct BlobLoaderError: Error, CustomStringConvertible, Equatable, Sendable {
    /// What kind of problem it is, for code that reacts to some of them.
    public enum Kind: String, Sendable {
        /// manifest.json is missing or unreadable.
        case missingManifest
        /// manifest.json is not JSON of the blob manifest's form, or names another format or version.
        case badManifest
        /// A manifest entry is inconsistent (unknown dtype, shape and byte count disagree, unsafe file name).
        case badEntry
        /// A blob file is missing.
        case missingFile
        /// A blob file's size is not the manifest's byte count.
        case sizeMismatch
        /// A blob file's SHA-256 is not the manifest's.
        case checksumMismatch
    }

    /// What kind of problem it is.
    public var kind: Kind
    /// The sentence saying what is wrong.
    public var message: String
    /// The file (relative to the blob folder) the problem is in.
    public var file: String
    /// What the manifest (or the format) asks for, e.g. "1728 bytes".
    public var expected: String?
    /// What the folder holds instead.
    public var found: String?

    /// A problem of `kind` in `file` (relative to the blob folder).
    public init(_ kind: Kind, _ message: String, file: String, expected: String? = nil, found: String? = nil) {
        self.kind = kind
        self.message = message
        self.file = file
        self.expected = expected
        self.found = found
    }

    /// "file: message (expected ..., found ...)".
    public var description: String {
        var text = "\(file): \(message)"
        switch (expected, found) {
        case let (e?, f?): text += " (expected \(e), found \(f))"
        case let (e?, nil): text += " (expected \(e))"
        case let (nil, f?): text += " (found \(f))"
        case (nil, nil): break
        }
        return text
    }
}
