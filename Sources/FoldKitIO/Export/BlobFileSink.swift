import FoldKitBlobFormat
import FoldKitCore
import Foundation

/// Writes blob files and computes their SHA-256 in the background, so that the caller reads, folds and
/// rearranges the next chunk while earlier ones are written and hashed.
///
/// Writing and hashing are two serial queues of their own (each blob's chunks stay in order on both), so
/// the work spreads over the cores as they come free instead of one thread doing write-then-hash.
/// Large blobs go through a small pool of reusable buffers (`borrow`, then `append(borrowed:...)` or
/// `write(borrowed:...)`; a buffer returns to the pool once it is both written and hashed): memory stays at
/// `slots` buffers, and no page is faulted in twice. A blob may arrive in chunks (`append`, in file order,
/// the last one marked), so the buffers can be small enough to stay in cache from the fold to the write
/// and the hash. Small blobs are passed as arrays. Every blob is keyed by an integer the caller picks;
/// `finish()` waits for all of them and returns the hex digests by key.
final class BlobFileSink: @unchecked Sendable {
    private let writeQueue = DispatchQueue(label: "foldkit.blob-writer")
    private let hashQueue = DispatchQueue(label: "foldkit.blob-hasher")
    private let slots: DispatchSemaphore
    private let lock = NSLock()
    private var free: [UnsafeMutableBufferPointer<Float>] = []
    private var owned: [UnsafeMutableBufferPointer<Float>] = []
    /// Borrowed buffers queued on both queues, by base address: how many of the two are still using them.
    private var pending: [UnsafeMutableRawPointer: Int] = [:]
    private var digests: [Int: String] = [:]
    /// Keys of blobs holding a NaN or an infinity (found while hashing, on the data already in cache).
    private var nonFinite: Set<Int> = []
    private var failure: Error?
    private let capacity: Int
    /// The element type written: float32 as given, or float16 converted on the caller's thread before queueing.
    let dtype: BlobDType
    /// float16 only: the first value past 65504 of each blob that has one, its index counted over the blob's
    /// chunks (used on the caller's thread only, like `elementsQueued`).
    private(set) var halfOverflows: [Int: HalfConversion.Overflow] = [:]
    /// Values queued so far per blob (float16 only), to place a chunk's overflow in its blob.
    private var elementsQueued: [Int: Int] = [:]
    /// Blobs whose first chunk was written and whose last was not (used on the write queue only).
    private var openFiles: [Int: OutputFile] = [:]
    /// Digests of blobs whose last chunk was not hashed yet (used on the hash queue only).
    private var openDigests: [Int: PlatformSHA256] = [:]

    /// `slots` buffers may be in flight at once (borrowed or queued); `borrow` waits for one to come back.
    /// Buffers are allocated with room for at least `capacity` floats (the largest chunk, if known).
    init(slots: Int = 2, capacity: Int = 0, dtype: BlobDType = .float32) {
        self.slots = DispatchSemaphore(value: slots)
        self.capacity = capacity
        self.dtype = dtype
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
    /// the pool when written and hashed.
    func write(borrowed buffer: UnsafeMutableBufferPointer<Float>, to path: String, key: Int) {
        append(borrowed: buffer, to: path, key: key, last: true)
    }

    /// Queues a borrowed buffer as the next chunk of blob `key` (the first chunk creates `path`, later
    /// ones are written after it); the buffer returns to the pool when written and hashed. After the
    /// `last` chunk the file is closed and its digest recorded under `key`.
    func append(borrowed buffer: UnsafeMutableBufferPointer<Float>, to path: String, key: Int, last: Bool) {
        var byteCount = buffer.count * 4
        if dtype == .float16 {
            noteOverflow(HalfConversion.convertInPlace(buffer), key: key, count: buffer.count)
            byteCount = buffer.count * 2
        }
        let borrowed = Borrowed(buffer: buffer, byteCount: byteCount)
        if let base = buffer.baseAddress {
            lock.lock()
            pending[UnsafeMutableRawPointer(base)] = 2
            lock.unlock()
        } else {
            giveBack(buffer)  // an empty chunk holds no memory; `release` ignores it
        }
        writeQueue.async { [self] in
            writeChunk(borrowed.bytes, path: path, key: key, last: last)
            release(borrowed.buffer)
        }
        hashQueue.async { [self] in
            hashChunk(borrowed.bytes, key: key, last: last)
            release(borrowed.buffer)
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
        var values = values
        if dtype == .float16 {
            values.withUnsafeMutableBufferPointer { noteOverflow(HalfConversion.convertInPlace($0), key: key, count: $0.count) }
        }
        let bytes = values, count = values.count * dtype.size
        writeQueue.async { [self] in
            bytes.withUnsafeBytes { writeChunk(UnsafeRawBufferPointer(rebasing: $0[0..<count]), path: path, key: key, last: true) }
        }
        hashQueue.async { [self] in
            bytes.withUnsafeBytes { hashChunk(UnsafeRawBufferPointer(rebasing: $0[0..<count]), key: key, last: true) }
        }
    }

    /// Records a converted chunk's overflow (if it is the blob's first) at its index in the blob.
    private func noteOverflow(_ overflow: HalfConversion.Overflow?, key: Int, count: Int) {
        let before = elementsQueued[key] ?? 0
        elementsQueued[key] = before + count
        if let overflow, halfOverflows[key] == nil {
            halfOverflows[key] = HalfConversion.Overflow(index: before + overflow.index, value: overflow.value)
        }
    }

    /// Waits for every queued write; returns the digests by key or throws the first write error.
    func finish() throws -> [Int: String] {
        writeQueue.sync {}
        hashQueue.sync {}
        lock.lock()
        defer { lock.unlock() }
        if let failure { throw failure }
        return digests
    }

    /// Keys of the blobs that hold a NaN or an infinity; complete after `finish()`.
    var keysWithNonFiniteValues: Set<Int> {
        lock.lock()
        defer { lock.unlock() }
        return nonFinite
    }

    /// Waits for queued writes without reporting (used when the conversion itself failed); closes blobs
    /// left unfinished.
    func drain() {
        writeQueue.sync { openFiles = [:] }
        hashQueue.sync { openDigests = [:] }
    }

    /// One queue is done with a borrowed buffer; the second one to finish hands it back to the pool.
    private func release(_ buffer: UnsafeMutableBufferPointer<Float>) {
        guard let base = buffer.baseAddress.map(UnsafeMutableRawPointer.init) else { return }
        lock.lock()
        let users = (pending[base] ?? 1) - 1
        pending[base] = users > 0 ? users : nil
        lock.unlock()
        if users == 0 { giveBack(buffer) }
    }

    private var failed: Bool {
        lock.lock()
        defer { lock.unlock() }
        return failure != nil
    }

    /// On the write queue: writes one chunk of blob `key` after the earlier ones and closes the file after
    /// the last. After any failure it only drops its work (the first error is kept).
    private func writeChunk(_ bytes: UnsafeRawBufferPointer, path: String, key: Int, last: Bool) {
        if failed {
            openFiles = [:]
            return
        }
        do {
            let file = try openFiles.removeValue(forKey: key) ?? OutputFile(creating: path)
            try file.append(bytes)
            if last {
                try file.close()
            } else {
                openFiles[key] = file
            }
        } catch {
            lock.lock()
            if failure == nil { failure = error }
            lock.unlock()
            openFiles = [:]
        }
    }

    /// On the hash queue: feeds one chunk of blob `key` to its digest and records the digest after the last.
    private func hashChunk(_ bytes: UnsafeRawBufferPointer, key: Int, last: Bool) {
        if failed {
            openDigests = [:]
            return
        }
        let hasher = openDigests.removeValue(forKey: key) ?? PlatformSHA256()
        hasher.update(bytes)
        if dtype == .float16 ? Self.holdsNonFiniteHalf(bytes) : Self.holdsNonFinite(bytes) {
            lock.lock()
            nonFinite.insert(key)
            lock.unlock()
        }
        if last {
            let digest = Checksum.hex(hasher.finalize())
            lock.lock()
            digests[key] = digest
            lock.unlock()
        } else {
            openDigests[key] = hasher
        }
    }
}

extension BlobFileSink {
    /// Whether little-endian float32 `bytes` hold a NaN or an infinity: an all-ones exponent
    /// (bits & 0x7F80_0000 == 0x7F80_0000).
    static func holdsNonFinite(_ bytes: UnsafeRawBufferPointer) -> Bool { holdsAllOnesExponent(bytes, mask: UInt32(0x7F80_0000)) }

    /// Whether little-endian binary16 `bytes` hold a NaN or an infinity: an all-ones exponent
    /// (bits & 0x7C00 == 0x7C00).
    static func holdsNonFiniteHalf(_ bytes: UnsafeRawBufferPointer) -> Bool { holdsAllOnesExponent(bytes, mask: UInt16(0x7C00)) }

    /// Whether some little-endian word of `bytes` has every bit of `mask` (the exponent field) set.
    /// Branch-free over the chunk, so it vectorises.
    private static func holdsAllOnesExponent<Word: FixedWidthInteger & UnsignedInteger>(_ bytes: UnsafeRawBufferPointer, mask: Word) -> Bool {
        let size = MemoryLayout<Word>.size
        let words = bytes.count / size
        guard words > 0, let base = bytes.baseAddress else { return false }
        var found: Word = 0
        for index in 0..<words {
            let bits = Word(littleEndian: base.loadUnaligned(fromByteOffset: index * size, as: Word.self))
            found |= (bits & mask) == mask ? 1 : 0
        }
        return found != 0
    }
}

/// A borrowed buffer handed to the queues, with how many of its bytes hold the chunk (4 per value, or 2
/// once converted to float16); the pool's lock and semaphore order its use.
private struct Borrowed: @unchecked Sendable {
    let buffer: UnsafeMutableBufferPointer<Float>
    let byteCount: Int

    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: buffer.baseAddress, count: buffer.baseAddress == nil ? 0 : byteCount) }
}
