/// What is wrong with a blob folder or one of its blobs (`BlobFolderReader`): the kind, the file, and the
/// expected and found values.
///
/// `description` reads "conv0_W.bin: size differs from the manifest (expected 1728 bytes, found 1724 bytes)".
public struct BlobFolderError: Error, CustomStringConvertible, Equatable, Sendable {
    /// What kind of problem it is, for code that reacts to some of them.
    public enum Kind: String, Sendable {
        /// manifest.json is missing or unreadable.
        case missingManifest
        /// manifest.json is not JSON of the blob manifest's form, or names another format or version.
        case badManifest
        /// A manifest entry's file name is not a plain name inside the folder ("../x.bin", "a/b.bin", "").
        case unsafeFileName
        /// A manifest entry is inconsistent (unknown dtype or layout, shape and byte count disagree).
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
    public var description: String { "\(file): \(sentence)" }

    /// "message (expected ..., found ...)": what is wrong without the file.
    public var sentence: String {
        switch (expected, found) {
        case (let e?, let f?): return "\(message) (expected \(e), found \(f))"
        case (let e?, nil): return "\(message) (expected \(e))"
        case (nil, let f?): return "\(message) (found \(f))"
        case (nil, nil): return message
        }
    }
}
