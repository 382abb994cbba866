import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a 4-D convolution weight tensor is laid out in memory.
///
/// With O output channels, I input channels per group, and a kh x kw kernel:
/// - `oihw`: index = ((o*I + i)*kh + y)*kw + x  (Darknet, PyTorch, ONNX; FoldKit's internal layout)
/// - `ohwi`: index = ((o*kh + y)*kw + x)*I + i  (Metal's MPSCNNConvolution; the blob default)
/// - `hwio`: index = ((y*kw + x)*I + i)*O + o  (Keras / TensorFlow)
public enum WeightLayout: String, CaseIterable, Sendable, Codable {
    case oihw = "OIHW"
    case ohwi = "OHWI"
    case hwio = "HWIO"
}

/// A run of little-endian float32 values inside a file, read only when needed so that large models
/// stream through conversion without being held in memory.
public struct FileSpan: Hashable, Sendable {
    public var path: String
    public var byteOffset: Int
    public var count: Int

    public init(path: String, byteOffset: Int, count: Int) {
        self.path = path
        self.byteOffset = byteOffset
        self.count = count
    }

    public var byteCount: Int { count * 4 }
    public var byteRange: Range<Int> { byteOffset..<(byteOffset + byteCount) }
}

/// A parameter tensor (weights, bias, batch-norm statistics) of a layer, in FoldKit's internal layout
/// (convolution weights OIHW, dense weights [out][in], vectors [n]).
///
/// The values are either held in memory or refer to a span of the source file (`FileSpan`), read by
/// `floats()` on demand.
public struct WeightTensor: Sendable {
    public enum Storage: Sendable {
        case values([Float])
        case file(FileSpan)
    }

    public var shape: [Int]
    public var storage: Storage

    public init(shape: [Int], values: [Float]) {
        self.shape = shape
        self.storage = .values(values)
    }

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

/// Reads little-endian float32 runs from files with positioned reads (no whole-file buffering).
public enum FloatFileReader {
    public static func read(_ span: FileSpan) throws -> [Float] {
        let reader = FloatSpanReader()
        return try [Float](unsafeUninitializedCapacity: span.count) { buffer, initialized in
            try reader.read(span, into: UnsafeMutableBufferPointer(rebasing: buffer[0..<span.count]))
            initialized = span.count
        }
    }

    /// Decodes little-endian IEEE-754 float32 values from raw bytes.
    public static func decodeLittleEndianFloats(_ data: Data) -> [Float] {
        let count = data.count / 4
        var result = [Float](repeating: 0, count: count)
        result.withUnsafeMutableBytes { dst in
            data.withUnsafeBytes { src in
                dst.copyMemory(from: UnsafeRawBufferPointer(rebasing: src[0..<(count * 4)]))
            }
        }
        #if _endian(big)
        for i in 0..<count { result[i] = Float(bitPattern: UInt32(littleEndian: result[i].bitPattern)) }
        #endif
        return result
    }
}

/// Reads `FileSpan`s straight into caller memory with `pread(2)`, keeping one open descriptor per file
/// until it is deallocated, so streaming conversion neither reopens the weights file per tensor nor
/// copies through `Data`. Not thread-safe: one reader per thread.
public final class FloatSpanReader {
    private var descriptors: [String: Int32] = [:]

    public init() {}

    deinit {
        for descriptor in descriptors.values { close(descriptor) }
    }

    /// Reads `span.count` little-endian float32 values into `buffer` (which must hold at least that many).
    /// A file that ends inside the span is a `badInput` error naming the byte offset where it ends.
    public func read(_ span: FileSpan, into buffer: UnsafeMutableBufferPointer<Float>) throws {
        guard buffer.count >= span.count, let base = buffer.baseAddress else {
            if span.count == 0 { return }
            throw FoldKitError(.usage, "read buffer too small", file: span.path, expected: "\(span.count) floats", found: "\(buffer.count)")
        }
        let descriptor = try self.descriptor(for: span.path)
        let raw = UnsafeMutableRawPointer(base)
        var done = 0
        while done < span.byteCount {
            let n = pread(descriptor, raw + done, span.byteCount - done, off_t(span.byteOffset + done))
            if n < 0 {
                if errno == EINTR { continue }
                throw FoldKitError(.io, "read failed: \(String(cString: strerror(errno)))", file: span.path, byteOffset: span.byteOffset + done)
            }
            if n == 0 {
                throw FoldKitError(
                    .badInput, "file ends inside a tensor", file: span.path, byteOffset: span.byteOffset + done,
                    expected: "\(span.byteCount) bytes", found: "\(done)")
            }
            done += n
        }
        #if _endian(big)
        for i in 0..<span.count { base[i] = Float(bitPattern: UInt32(littleEndian: base[i].bitPattern)) }
        #endif
    }

    /// The tensor's values: in-memory ones as they are, file-backed ones read through this reader.
    public func floats(_ tensor: WeightTensor) throws -> [Float] {
        switch tensor.storage {
        case .values(let values): return values
        case .file(let span):
            return try [Float](unsafeUninitializedCapacity: span.count) { buffer, initialized in
                try read(span, into: UnsafeMutableBufferPointer(rebasing: buffer[0..<span.count]))
                initialized = span.count
            }
        }
    }

    /// A copy of `tensor` held in memory (read through this reader when file-backed).
    public func materialized(_ tensor: WeightTensor) throws -> WeightTensor {
        WeightTensor(shape: tensor.shape, values: try floats(tensor))
    }

    private func descriptor(for path: String) throws -> Int32 {
        if let descriptor = descriptors[path] { return descriptor }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw FoldKitError(.io, "cannot open file for reading: \(String(cString: strerror(errno)))", file: path)
        }
        descriptors[path] = descriptor
        return descriptor
    }
}
