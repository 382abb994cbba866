/// The one error type every FoldKit stage throws for bad input, unsupported models and I/O failures.
///
/// Every error carries as much location as is known, so a user can find the problem without a
/// debugger: the file, the layer (index and section or Keras name), the cfg line, and the byte offset
/// in the weights file where it applies, plus what was expected against what was found.
/// Printed form: `file:line: layer 3 [convolutional] at byte 1234: message (expected X, found Y)`.
/// Codable: the `foldkit` command's HDF5 helper process sends its error to the command as JSON.
public struct FoldKitError: Error, CustomStringConvertible, Equatable, Sendable, Codable {
    /// What went wrong, for exit codes and callers.
    public enum Kind: String, Sendable, Codable {
        /// The input file is malformed (truncated, leftover bytes, bad value, bad syntax).
        case badInput
        /// The input is well formed but uses something FoldKit refuses (binary convolutions, custom layers).
        case unsupported
        /// Reading or writing a file failed at the operating-system level.
        case io
        /// The command line or API was used inconsistently (bad layout name, wrong input shape).
        case usage
    }

    /// What went wrong.
    public var kind: Kind
    /// The sentence saying what is wrong.
    public var message: String
    /// The file the problem is in.
    public var file: String?
    /// 1-based line in a text file (a .cfg).
    public var line: Int?
    /// The layer, as `layer 3 [convolutional]` (Darknet) or `conv2d_1 (Conv2D)` (Keras).
    public var layer: String?
    /// Byte offset in `file` where the problem applies (weights files).
    public var byteOffset: Int?
    /// What was expected there.
    public var expected: String?
    /// What was found instead.
    public var found: String?

    /// A problem of `kind`, with as much of its place (file, line, layer, byte offset) and the expected
    /// and found values as is known.
    public init(
        _ kind: Kind, _ message: String, file: String? = nil, line: Int? = nil, layer: String? = nil,
        byteOffset: Int? = nil, expected: String? = nil, found: String? = nil
    ) {
        self.kind = kind
        self.message = message
        self.file = file
        self.line = line
        self.layer = layer
        self.byteOffset = byteOffset
        self.expected = expected
        self.found = found
    }

    /// "file:line: layer: at byte N: message (expected ..., found ...)" with the parts known.
    public var description: String {
        var location: [String] = []
        if let file { location.append(line.map { "\(file):\($0)" } ?? file) }
        if let layer { location.append(layer) }
        if let byteOffset { location.append("at byte \(byteOffset)") }
        var text = location.isEmpty ? message : location.joined(separator: ": ") + ": " + message
        switch (expected, found) {
        case (let e?, let f?): text += " (expected \(e), found \(f))"
        case (let e?, nil): text += " (expected \(e))"
        case (nil, let f?): text += " (found \(f))"
        default: break
        }
        return text
    }

    /// Returns a copy with missing location fields filled from `context` (fields already set win).
    package func located(file: String? = nil, line: Int? = nil, layer: String? = nil, byteOffset: Int? = nil) -> FoldKitError {
        var copy = self
        if copy.file == nil { copy.file = file }
        if copy.line == nil { copy.line = line }
        if copy.layer == nil { copy.layer = layer }
        if copy.byteOffset == nil { copy.byteOffset = byteOffset }
        return copy
    }
}
