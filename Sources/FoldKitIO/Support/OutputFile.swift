import FoldKitCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file created (or truncated) for writing and filled front to back, one chunk at a time, with plain
/// `write(2)` straight from caller memory. Errors name the file and, for a failed write, the byte offset
/// in the file where it failed. The descriptor is closed by `close()` or, failing that, on deinit.
final class OutputFile {
    let path: String
    /// Bytes written so far (the offset of the next chunk).
    private(set) var byteCount = 0
    private var descriptor: Int32

    /// Creates or truncates `path` (mode 0666 less the umask, as `Data.write` does).
    init(creating path: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else {
            throw FoldKitError(.io, "cannot create file: \(String(cString: strerror(errno)))", file: path)
        }
        self.path = path
        self.descriptor = descriptor
    }

    deinit {
        if descriptor >= 0 { _ = systemClose(descriptor) }
    }

    /// Writes all of `bytes` after what was written before.
    func append(_ bytes: UnsafeRawBufferPointer) throws {
        try Self.writeAll(bytes, to: descriptor, path: path, at: byteCount)
        byteCount += bytes.count
    }

    /// Writes all of `bytes` to `descriptor` (a file, or a pipe such as standard output), retrying partial
    /// and interrupted writes; an error names `path` and the byte offset, counted from `offset`, where it failed.
    static func writeAll(_ bytes: UnsafeRawBufferPointer, to descriptor: Int32, path: String?, at offset: Int) throws {
        guard let base = bytes.baseAddress else { return }
        var done = 0
        while done < bytes.count {
            let n = systemWrite(descriptor, base + done, bytes.count - done)
            if n < 0 {
                if errno == EINTR { continue }
                throw FoldKitError(.io, "write failed: \(String(cString: strerror(errno)))", file: path, byteOffset: offset + done)
            }
            done += n
        }
    }

    /// Closes the file; a failing close (delayed write errors) is an error.
    func close() throws {
        guard descriptor >= 0 else { return }
        let result = systemClose(descriptor)
        descriptor = -1
        guard result == 0 else {
            throw FoldKitError(.io, "write failed on close: \(String(cString: strerror(errno)))", file: path)
        }
    }
}

#if canImport(Glibc)
    private let systemWrite = Glibc.write
    private let systemClose = Glibc.close
#elseif canImport(Darwin)
    private let systemWrite = Darwin.write
    private let systemClose = Darwin.close
#endif
