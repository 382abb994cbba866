import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A parameter tensor (weights, bias, batch-norm statistics) of a layer, in FoldKit's internal layout
/// (convolution weights OIHW, dense weights [out][in], vectors [n]).
///
/// The values are either held in memory or refer to a span of the source file (`FileSpan`), read by
/// `floats()` on demand.
public struct WeightTensor: Sendable {
    /// Where the values are.
    public enum Storage: Sendable {
        case values([Float])
        case file(FileSpan)
    }

    /// The tensor's shape.
    public var shape: [Int]
    /// The values, or the file span holding them.
    public var storage: Storage

    /// A tensor held in memory.
    public init(shape: [Int], values: [Float]) {
        self.shape = shape
        self.storage = .values(values)
    }

    /// A tensor read from `span` when needed.
    public init(shape: [Int], span: FileSpan) {
        self.shape = shape
        self.storage = .file(span)
    }

    /// Number of elements: the product of `shape`.
    public var count: Int { shape.reduce(1, *) }

    /// Where the tensor came from in the source file, if it is file-backed.
    public var fileSpan: FileSpan? {
        if case .file(let span) = storage { return span }
        return nil
    }

    /// The values, reading them from the file if needed.
    public func floats() throws -> [Float] {
        switch storage {
        case .values(let v): return v
        case .file(let span): return try FloatFileReader.read(span)
        }
    }

    /// A copy whose values are held in memory.
    public func materialized() throws -> WeightTensor {
        WeightTensor(shape: shape, values: try floats())
    }
}
