import Crypto
import FoldKitCore
import Foundation

/// Reads tensors for conversion and computes each source file's SHA-256 from the same reads, so a
/// 250 MB weights file is read once, not twice.
///
/// Per file it keeps a digest of bytes 0..<`next`. A read of [a, b) with a <= next < b feeds bytes
/// next..<b from the buffer just read; a read starting past `next` first reads and feeds the gap from the
/// file (the weights header, tensors read elsewhere). `digest(of:)` feeds the rest of the file. Whatever
/// the order of reads, the result is the digest of the whole file as it is on disk.
final class DigestingSpanReader {
    private final class FileState {
        var hasher = SHA256()
        var next = 0
    }

    private let reader = FloatSpanReader()
    private var states: [String: FileState] = [:]

    /// Reads `span` into `buffer` (at least `span.count` floats) and feeds its bytes to the file's digest.
    func read(_ span: FileSpan, into buffer: UnsafeMutableBufferPointer<Float>) throws {
        try reader.read(span, into: buffer)
        #if _endian(little)
        try feed(span.path, offset: span.byteOffset, bytes: UnsafeRawBufferPointer(UnsafeMutableBufferPointer(rebasing: buffer[0..<span.count])))
        #endif
    }

    /// The tensor's values, read through `read` when it is file-backed.
    func floats(_ tensor: WeightTensor) throws -> [Float] {
        switch tensor.storage {
        case .values(let values): return values
        case .file(let span):
            return try [Float](unsafeUninitializedCapacity: span.count) { buffer, initialized in
                try read(span, into: UnsafeMutableBufferPointer(rebasing: buffer[0..<span.count]))
                initialized = span.count
            }
        }
    }

    /// A copy of `tensor` held in memory (read through `read` when file-backed).
    func materialized(_ tensor: WeightTensor) throws -> WeightTensor {
        WeightTensor(shape: tensor.shape, values: try floats(tensor))
    }

    /// The SHA-256 (lowercase hex) of the whole file at `path`, reading whatever was not read yet.
    func digest(of path: String) throws -> String {
        let state = states[path] ?? FileState()
        try RawFile.forEachChunk(of: path, from: state.next) { state.hasher.update(bufferPointer: $0) }
        states[path] = nil
        return Checksum.hex(state.hasher.finalize())
    }

    private func feed(_ path: String, offset: Int, bytes: UnsafeRawBufferPointer) throws {
        let state: FileState
        if let existing = states[path] { state = existing } else { state = FileState(); states[path] = state }
        let end = offset + bytes.count
        if offset > state.next {
            let gap = offset - state.next
            let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: gap, alignment: 16)
            defer { scratch.deallocate() }
            try RawFile.read(path, offset: state.next, into: scratch)
            state.hasher.update(bufferPointer: UnsafeRawBufferPointer(scratch))
            state.next = offset
        }
        if state.next >= offset && state.next < end {
            state.hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: bytes[(state.next - offset)...]))
            state.next = end
        }
    }
}
