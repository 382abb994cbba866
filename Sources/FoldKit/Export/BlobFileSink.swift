import Crypto
import FoldKitCore
import Foundation

/// Writes blob files and computes their SHA-256 on a background thread, so that the caller reads, folds
/// and rearranges the next tensor on one core while the previous one is written and hashed on the other.
///
/// Large blobs go through a small pool of reusable buffers (`borrow`, then `write(borrowed:...)`, which
/// hands the buffer back once written): memory stays at `slots` buffers of the largest tensor, and no
/// page is faulted in twice. Small blobs are passed as arrays. Every write is keyed by an integer the
/// caller picks; `finish()` waits for all of them and returns the hex digests by key.
final class BlobFileSink: @unchecked Sendable {
    private let queue = DispatchQueue(label: "foldkit.blob-writer")
    private let slots: DispatchSemaphore
    private let lock = NSLock()
    private var free: [UnsafeMutableBufferPointer<Float>] = []
    private var owned: [UnsafeMutableBufferPointer<Float>] = []
    private var digests: [Int: String] = [:]
    private var failure: Error?
    private let capacity: Int

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

    /// Queues `count` floats of a borrowed buffer to be written to `path`; the buffer returns to the pool
    /// when written. The digest is recorded under `key`.
    func write(borrowed buffer: UnsafeMutableBufferPointer<Float>, to path: String, key: Int) {
        let borrowed = Borrowed(buffer: buffer)
        queue.async { [self] in
            let buffer = borrowed.buffer
            let digest = writeAndHash(UnsafeRawBufferPointer(buffer), path: path)
            lock.lock()
            if let digest { digests[key] = digest }
            lock.unlock()
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
            let digest = values.withUnsafeBytes { writeAndHash($0, path: path) }
            lock.lock()
            if let digest { digests[key] = digest }
            lock.unlock()
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

    /// Waits for queued writes without reporting (used when the conversion itself failed).
    func drain() {
        queue.sync {}
    }

    private func writeAndHash(_ bytes: UnsafeRawBufferPointer, path: String) -> String? {
        lock.lock()
        let failed = failure != nil
        lock.unlock()
        if failed { return nil }
        do {
            try RawFile.write(bytes, to: path)
            return Checksum.sha256Hex(bytes)
        } catch {
            lock.lock()
            if failure == nil { failure = error }
            lock.unlock()
            return nil
        }
    }
}

/// A borrowed buffer handed to the writer thread; the pool's lock and semaphore order its use.
private struct Borrowed: @unchecked Sendable {
    let buffer: UnsafeMutableBufferPointer<Float>
}
