import FoldKitCore
import Foundation

/// A float .npy array given as the network's input (`--input`), read before the model so that
/// sizes a Keras model leaves undefined can be taken from its shape.
public struct InputArray: Sendable {
    /// Where it was read from (also the input's origin in reports and manifests).
    public var path: String
    /// The array's shape as stored (C order).
    public var shape: [Int]
    /// The values in stored (C) order.
    public var values: [Float]
    /// Once the values are read: the file's size and SHA-256 (of the bytes the values came from) and, for a
    /// float64 or float16 file, how the values were converted to float32 (`FileDigest.note`).
    public var digest: FileDigest?

    /// An array read from `path` with its .npy `shape` and values in C order.
    public init(path: String, shape: [Int], values: [Float], digest: FileDigest? = nil) {
        self.path = path
        self.shape = shape
        self.values = values
        self.digest = digest
    }

    /// Reads a float32, float64 or float16 .npy, little- or big-endian (values converted to float32: float64
    /// rounded to nearest, a finite value past float32's range an error naming the element); any other
    /// dtype, or a header that is not numpy's, is an error naming the file, the byte offset, expected and found.
    public static func read(path: String) throws -> InputArray {
        try header(path: path).loaded()
    }

    /// The array's path and shape from its header alone (`values` stays empty until `loaded()`): a caller
    /// checks the shape against the network before a large array of the wrong shape is read.
    public static func header(path: String) throws -> InputArray {
        let header = try NPYFile.readHeader(path: path)
        return InputArray(path: path, shape: header.shape, values: [])
    }

    /// This array with its values and `digest` read (a no-op when either is there already). The digest is
    /// of the very bytes the values were parsed from.
    public func loaded() throws -> InputArray {
        guard digest == nil && values.isEmpty else { return self }
        guard let data = FileManager.default.contents(atPath: path) else { throw FoldKitError(.io, "cannot read input file", file: path) }
        let parsed = try NPYFile.parse(data, file: path)
        guard parsed.shape == shape else {
            throw FoldKitError(.io, "input file changed while it was read", file: path, expected: shapeText, found: "\(parsed.shape)")
        }
        return InputArray(
            path: path, shape: parsed.shape, values: parsed.values, digest: FileDigest(role: .input, path: path, data: data, note: parsed.note))
    }

    /// The shape in numpy's notation: `(1, 100)`, `(3,)`.
    public var shapeText: String { ShapeText.tuple(shape.map(String.init)) }
}
