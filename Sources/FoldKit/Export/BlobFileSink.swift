import Crypto
import FoldKitCore
import Foundation

/// Writes blob files and computes their SHA-256 on a background thread, so that the caller reads, folds
/// and rearranges the next chunk on one core while the previous ones are written and hashed on the other.
///
/// Large blobs go through a small pool of reusable buffers (`borrow`, then `append(borrowed:...)` or
/// `write(borrowed:...)`, which hand the buffer back once written): memory stays at `slots` buffers, and
/// no page is faulted in twice. A blob may arrive in chunks (`append`, in file order, the last one marked),
/// so the buffers can be small enough to stay in cache between folding, writing and hashing. Small
/// blobs are passed as arrays. Every blob is keyed by an integer the caller picks; `finish()` waits for
/// all of them and returns the hex digests by key.
final class BlobFileSink: @unchecked Sendable {
    private let queue = DispatchQueue(label: "foldkit.blob-writer")
    private let slots: DispatchSemaphore
    private let lock = NSLock()
    private var free: [UnsafeMutableBufferPointer<Float>] = []
    private var owned: [UnsafeMutableBufferPointer<Float>] = []
    private var digests: [Int: String] = [:]
    private var failure: Error?
    private let capacity: Int
    /// Blobs whose first chunk was written and whose last was not (used on the writer queue only).
    private var unfinished: [Int: OpenBlob] = [:]

    /// A blob being written chunk by chunk: its file and the digest of the bytes so far.
    private struct OpenBlob {
        var file: OutputFile
        var hasher: SHA256
    }

    /// `slots` buffers may be in flight at once (borrowed or queued); `borrow` waits for one to come back.
    /// Buffers are allocated with room for at least `capacity` floats (the largest tensor, if known).
    init(slots: Int = 2, capacity: Int = 0) {
        self.slots = DispatchSemaphore(value: slots)
        self.capacity = capacity
    }

    deinit {
        for buffer in owned { buffer.deallocate() }
    }

    /// A buffer of at least `count` floats (the returned pointer is exactly `count` long). Waits while
    /// every slot is in flight. Throws the writer's error if an earlier write failed.
    func borrow(count: Int) throws -> UnsafeMutableBufferPointer<Float> {
        slots.wait()
        lock.lock()
        defer { lock.unlock() }
        if let failure {
            slots.signal()
            throw failure
        }
        var buffer = free.popLast() ?? UnsafeMutableBufferPointer<Float>(start: nil, count: 0)
        if buffer.count < count {
            if let index = owned.firstIndex(where: { $0.baseAddress == buffer.baseAddress }), buffer.baseAddress != nil {
                owned.remove(at: index)
                buffer.deallocate()
            }
            buffer = UnsafeMutableBufferPointer<Float>.allocate(capacity: max(count, capacity, 1))
            owned.append(buffer)
        }
        return UnsafeMutableBufferPointer(rebasing: buffer[0..<count])
    }

    /// Queues a borrowed buffer as the whole of blob `key`, to be written to `path`; the buffer returns to
    /// the pool when written.
    func write(borrowed buffer: UnsafeMutableBufferPointer<Float>, to path: String, key: Int) {
        append(borrowed: buffer, to: path, key: key, last: true)
    }

    /// Queues a borrowed buffer as the next chunk of blob `key` (the first chunk creates `path`, later
    /// ones are written after it); the buffer returns to the pool when written. After the `last` chunk the
    /// file is closed and its digest recorded under `key`.
    func append(borrowed buffer: UnsafeMutableBufferPointer<Float>, to path: String, key: Int, last: Bool) {
        let borrowed = Borrowed(buffer: buffer)
        queue.async { [self] in
            let buffer = borrowed.buffer
            writeChunk(UnsafeRawBufferPointer(buffer), path: path, key: key, last: last)
            giveBack(buffer)
        }
    }

    /// Returns a borrowed buffer without writing it (after a failure).
    func giveBack(_ buffer: UnsafeMutableBufferPointer<Float>) {
        lock.lock()
        if let base = buffer.baseAddress, let whole = owned.first(where: { $0.baseAddress == base }) {
            free.append(whole)
        }
        lock.unlock()
        slots.signal()
    }

    /// Queues a small array to be written to `path`, its digest recorded under `key`.
    func write(_ values: [Float], to path: String, key: Int) {
        queue.async { [self] in
            values.withUnsafeBytes { writeChunk($0, path: path, key: key, last: true) }
        }
    }

    /// Waits for every queued write; returns the digests by key or throws the first write error.
    func finish() throws -> [Int: String] {
        queue.sync {}
        lock.lock()
        defer { lock.unlock() }
        if let failure { throw failure }
        return digests
    }

    /// Waits for queued writes without reporting (used when the conversion itself failed); closes blobs
    /// left unfinished.
    func drain() {
        queue.sync { unfinished = [:] }
    }

    /// On the writer queue: writes one chunk of blob `key` and feeds it to the blob's digest; records the
    /// digest after the last chunk. After any failure it only drops its work (the first error is kept).
    private func writeChunk(_ bytes: UnsafeRawBufferPointer, path: String, key: Int, last: Bool) {
        lock.lock()
        let failed = failure != nil
        lock.unlock()
        if failed {
            unfinished = [:]
            return
        }
        do {
            var blob = try unfinished.removeValue(forKey: key) ?? OpenBlob(file: OutputFile(creating: path), hasher: SHA256())
            try blob.file.append(bytes)
            blob.hasher.update(bufferPointer: bytes)
            if last {
                try blob.file.close()
                let digest = Checksum.hex(blob.hasher.finalize())
                lock.lock()
                digests[key] = digest
                lock.unlock()
            } else {
                unfinished[key] = blob
            }
        } catch {
            lock.lock()
            if failure == nil { failure = error }
            lock.unlock()
            unfinished = [:]
        }
    }
}

/// A borrowed buffer handed to the writer thread; the pool's lock and semaphore order its use.
private struct Borrowed: @unchecked Sendable {
    let buffer: UnsafeMutableBufferPointer<Float>
}
