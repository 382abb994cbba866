import FoldKitCore
import Foundation

/// Pretty, key-sorted JSON, so manifests and reports diff cleanly and are byte-identical across runs.
package enum JSONOutput {
    package static func encode<T: Encodable>(_ value: T) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return try encoder.encode(value)
    }

    package static func write<T: Encodable>(_ value: T, to url: URL) throws {
        do { try encode(value).write(to: url) } catch {
            throw FoldKitError(.io, "cannot write JSON: \(error.localizedDescription)", file: url.path)
        }
    }
}
