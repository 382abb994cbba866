import FoldKitCore
import Foundation

/// A float32 .npy array given as the network's input (`--input`), read before the model so that
/// sizes a Keras model leaves undefined can be taken from its shape.
public struct InputArray: Sendable {
    /// Where it was read from (also the input's origin in reports and manifests).
    public var path: String
    /// The array's shape as stored (C order).
    public var shape: [Int]
    /// The values in stored (C) order.
    public var values: [Float]

    /// An array read from `path` with its .npy `shape` and values in C order.
    public init(path: String, shape: [Int], values: [Float]) {
        self.path = path
        self.shape = shape
        self.values = values
    }

    /// Reads a float32 .npy; any other dtype is an error naming the file, expected and found.
    public static func read(path: String) throws -> InputArray {
        guard let data = FileManager.default.contents(atPath: path) else { throw FoldKitError(.io, "cannot read input file", file: path) }
        let parsed = try NPYFile.parse(data, file: path)
        guard parsed.descr == "<f4" else {
            throw FoldKitError(.usage, "input must be float32", file: path, expected: "<f4", found: parsed.descr)
        }
        return InputArray(path: path, shape: parsed.shape, values: parsed.values)
    }

    /// The shape in numpy's notation: `(1, 100)`, `(3,)`.
    public var shapeText: String { ShapeText.tuple(shape.map(String.init)) }
}
