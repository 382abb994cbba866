import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A parameter tensor (weights, bias, batch-norm statistics) of a layer, in FoldKit's internal layout
/// (convolution weights OIHW, dense weights [out][in], vectors [n]).
///
/// The values are held in memory, refer to a span of the source file (`FileSpan`) read by `floats()` on
/// demand, or are a folded tensor read on demand: the span's values with each output row scaled
/// (`RowScale`), which is how the fold pass hands convert and verify weights it has not read.
public struct WeightTensor: Sendable, Codable {
    /// Where the values are.
    public enum Storage: Sendable, Codable {
        /// In memory.
        case values([Float])
        /// In the source file, read when needed.
        case file(FileSpan)
        /// In the source file, read when needed with row o of rowScale.count equal rows scaled: value w becomes
        /// Float(Double(w) * rowScale[o]) (batch norm folded into weights, `RowScale.apply`).
        case scaledFile(FileSpan, rowScale: [Double])
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

    /// A folded tensor read from `span` when needed, output row o scaled by `rowScale[o]` (`Storage.scaledFile`).
    public init(shape: [Int], span: FileSpan, rowScale: [Double]) {
        self.shape = shape
        self.storage = .scaledFile(span, rowScale: rowScale)
    }

    /// Number of elements: the product of `shape`.
    public var count: Int { shape.reduce(1, *) }

    /// The span of the source file the values are read from, if they are file-backed (scaled or not).
    public var fileSpan: FileSpan? {
        switch storage {
        case .values: return nil
        case .file(let span), .scaledFile(let span, _): return span
        }
    }

    /// The values, reading them from the file (and scaling their rows) if needed.
    public func floats() throws -> [Float] {
        if case .values(let v) = storage { return v }
        return try FloatSpanReader().floats(self)
    }

    /// A copy whose values are held in memory.
    public func materialized() throws -> WeightTensor {
        WeightTensor(shape: shape, values: try floats())
    }
}
