import FoldKit

/// A `FoldKitError` as the `read-check` helper process writes it (JSON on its standard output) and the
/// parent rebuilds it, field for field.
struct TransportedError: Codable {
    var kind: String
    var message: String
    var file: String?
    var line: Int?
    var layer: String?
    var byteOffset: Int?
    var expected: String?
    var found: String?

    init(_ error: FoldKitError) {
        kind = error.kind.rawValue
        message = error.message
        file = error.file
        line = error.line
        layer = error.layer
        byteOffset = error.byteOffset
        expected = error.expected
        found = error.found
    }

    /// The error as it was thrown in the helper (an unknown kind reads as bad input).
    var error: FoldKitError {
        FoldKitError(
            FoldKitError.Kind(rawValue: kind) ?? .badInput, message, file: file, line: line, layer: layer, byteOffset: byteOffset,
            expected: expected, found: found)
    }
}
