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

    /// The tensor's values: in-memory ones as they are, file-backed ones read through this reader (and
    /// their rows scaled, for a folded tensor).
    package func floats(_ tensor: WeightTensor) throws -> [Float] {
        if case .values(let values) = tensor.storage { return values }
        let count = tensor.fileSpan?.count ?? 0
        return try [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
            try readRows(of: tensor, firstRow: 0, into: UnsafeMutableBufferPointer(rebasing: buffer[0..<count]))
            initialized = count
        }
    }

    /// Reads `buffer.count` values of `tensor` from the start of output row `firstRow` into `buffer`, rows
    /// being `rowLength` values long: in-memory values copied, file-backed ones read with one `pread`, and a
    /// folded tensor's rows scaled (`RowScale.apply`). The range must lie inside the tensor.
    package func readRows(of tensor: WeightTensor, firstRow: Int, rowLength: Int? = nil, into buffer: UnsafeMutableBufferPointer<Float>) throws {
        let start = firstRow * (rowLength ?? 0)
        switch tensor.storage {
        case .values(let values):
            guard start >= 0, start + buffer.count <= values.count else {
                throw FoldKitError(.badInput, "tensor read past its end", expected: "\(values.count) values", found: "\(start + buffer.count)")
            }
            _ = buffer.update(fromContentsOf: values[start..<(start + buffer.count)])
        case .file(let span):
            try read(Self.part(of: span, start: start, count: buffer.count), into: buffer)
        case .scaledFile(let span, let rowScale):
            let length = rowScale.isEmpty ? 0 : span.count / rowScale.count
            guard rowLength == nil || rowLength == length else {
                throw FoldKitError(
                    .badInput, "weights do not match their shape", file: span.path, byteOffset: span.byteOffset,
                    expected: "rows of \(length) values", found: "rows of \(rowLength ?? 0)")
            }
            try read(Self.part(of: span, start: firstRow * length, count: buffer.count), into: buffer)
            try RowScale.apply(rowScale, to: buffer, firstRow: firstRow, rowLength: length)
        }
    }

    /// Values start ..< start + count of `span`, checked to lie inside it.
    private static func part(of span: FileSpan, start: Int, count: Int) throws -> FileSpan {
        guard start >= 0, count >= 0, start + count <= span.count else {
            throw FoldKitError(
                .badInput, "tensor read past its end", file: span.path, byteOffset: span.byteOffset,
                expected: "\(span.count) values", found: "\(start + count)")
        }
        return FileSpan(path: span.path, byteOffset: span.byteOffset + start * 4, count: count)
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
