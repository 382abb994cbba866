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
        guard let base = bytes.baseAddress else { return }
        var done = 0
        while done < bytes.count {
            let n = systemWrite(descriptor, base + done, bytes.count - done)
            if n < 0 {
                if errno == EINTR { continue }
                throw FoldKitError(.io, "write failed: \(String(cString: strerror(errno)))", file: path, byteOffset: byteCount + done)
            }
            done += n
        }
        byteCount += done
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
