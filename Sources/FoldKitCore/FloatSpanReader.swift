import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads `FileSpan`s straight into caller memory with `pread(2)`, keeping one open descriptor per file
/// until it is deallocated, so streaming conversion neither reopens the weights file per tensor nor
/// copies through `Data`. Not thread-safe: one reader per thread.
package final class FloatSpanReader {
    private var descriptors: [String: Int32] = [:]

    package init() {}

    deinit {
        for descriptor in descriptors.values { close(descriptor) }
    }

    /// Reads `span.count` little-endian float32 values into `buffer` (which must hold at least that many).
    /// A file that ends inside the span is a `badInput` error naming the byte offset where it ends.
    package func read(_ span: FileSpan, into buffer: UnsafeMutableBufferPointer<Float>) throws {
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
    package func floats(_ tensor: WeightTensor) throws -> [Float] {
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
    package func materialized(_ tensor: WeightTensor) throws -> WeightTensor {
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
