import FoldKitCore
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Whole-file writes and chunked reads with plain `open`/`write`/`read`, straight from and into caller
/// memory (no `Data` copies), for the conversion path that moves hundreds of megabytes.
enum RawFile {
    /// Creates or truncates `path` (mode 0666 less the umask, as `Data.write` does) and writes `bytes`.
    static func write(_ bytes: UnsafeRawBufferPointer, to path: String) throws {
        let file = try OutputFile(creating: path)
        try file.append(bytes)
        try file.close()
    }

    /// Fills `buffer` with the bytes of `path` starting at `offset`; a file that ends first is a `badInput` error.
    static func read(_ path: String, offset: Int, into buffer: UnsafeMutableRawBufferPointer) throws {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw FoldKitError(.io, "cannot open file for reading: \(String(cString: strerror(errno)))", file: path)
        }
        defer { close(descriptor) }
        var done = 0
        while done < buffer.count {
            let n = pread(descriptor, base + done, buffer.count - done, off_t(offset + done))
            if n < 0 {
                if errno == EINTR { continue }
                throw FoldKitError(.io, "read failed: \(String(cString: strerror(errno)))", file: path, byteOffset: offset + done)
            }
            if n == 0 {
                throw FoldKitError(
                    .badInput, "file ends early", file: path, byteOffset: offset + done,
                    expected: "\(buffer.count) bytes", found: "\(done)")
            }
            done += n
        }
    }

    /// Reads `path` from byte `offset` to its end in chunks of at most `chunkSize` bytes (positioned
    /// reads into one reused buffer), handing each chunk to `body`.
    static func forEachChunk(
        of path: String, from offset: Int = 0, chunkSize: Int = 1 << 20, _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw FoldKitError(.io, "cannot open file for reading: \(String(cString: strerror(errno)))", file: path)
        }
        defer { close(descriptor) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 64)
        defer { buffer.deallocate() }
        guard let base = buffer.baseAddress else { return }
        var position = offset
        while true {
            let n = pread(descriptor, base, chunkSize, off_t(position))
            if n < 0 {
                if errno == EINTR { continue }
                throw FoldKitError(.io, "read failed: \(String(cString: strerror(errno)))", file: path, byteOffset: position)
            }
            if n == 0 { return }
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            position += n
        }
    }
}
