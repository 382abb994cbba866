import FoldKitCore
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Checks every HDF5 global heap collection in a file before libhdf5 opens it. Variable-length strings
/// (`model_config`, `layer_names`) live in global heap collections; libhdf5 1.10 copies as many bytes as
/// a heap object's size field says, so a damaged size (2^63 - 1) makes `H5Aread` crash inside `H5HG_read`
/// instead of failing.
///
/// A collection (HDF5 file format specification, "Global Heap"): signature `GCOL`, version 1, three
/// reserved bytes, the collection size (8 bytes, little-endian, at least 4096, the header included), then
/// objects: index (2 bytes; 0 marks the free space that ends the list), reference count (2), reserved (4),
/// size (8), the data padded to a multiple of 8. Every object must end inside its collection, and the
/// free-space object must declare exactly the bytes left (libhdf5 1.10 loops forever otherwise). Collections
/// are found by their signature; a signature whose header is not a plausible collection (another version,
/// a size under 4096 or past the end of the file) is not one and is skipped.
enum HDF5GlobalHeapCheck {
    /// The largest collection walked: 64 MiB (h5py writes 4 KiB to a few MiB).
    static let maximumCollectionBytes = 64 << 20

    static func check(path: String, displayName: String) throws {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { return }  // libhdf5 reports the unreadable file itself
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return }
        let fileSize = Int(info.st_size)
        let chunk = 4 << 20
        var buffer = [UInt8](repeating: 0, count: chunk + 3)
        var offset = 0
        var carried = 0  // bytes kept from the previous chunk's end, so a signature across chunks is found
        while offset < fileSize {
            let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + carried, chunk, off_t(offset)) }
            guard count > 0 else { break }
            let valid = carried + count
            var hits: [Int] = []
            buffer.withUnsafeBytes { raw in
                let base = raw.baseAddress!
                let bytes = raw.bindMemory(to: UInt8.self)
                var at = 0
                // memchr finds each 'G' (C library speed); the next three bytes are compared here.
                while at + 4 <= valid, let found = memchr(base + at, Int32(UInt8(ascii: "G")), valid - at) {
                    let position = base.distance(to: UnsafeRawPointer(found))
                    if position + 4 <= valid, bytes[position + 1] == UInt8(ascii: "C"), bytes[position + 2] == UInt8(ascii: "O"),
                        bytes[position + 3] == UInt8(ascii: "L")
                    {
                        hits.append(offset - carried + position)
                    }
                    at = position + 1
                }
            }
            for hit in hits { try checkCollection(fd: fd, at: hit, fileSize: fileSize, displayName: displayName) }
            let keep = min(3, valid)
            for i in 0..<keep { buffer[i] = buffer[valid - keep + i] }
            carried = keep
            offset += count
        }
    }

    private static func checkCollection(fd: Int32, at start: Int, fileSize: Int, displayName: String) throws {
        var header = [UInt8](repeating: 0, count: 16)
        guard header.withUnsafeMutableBytes({ pread(fd, $0.baseAddress!, 16, off_t(start)) }) == 16 else { return }
        let size = Int(clamping: littleEndian(header, at: 8))
        guard header[4] == 1, size >= 4096, size <= fileSize - start, size <= maximumCollectionBytes else { return }
        var bytes = [UInt8](repeating: 0, count: size)
        guard bytes.withUnsafeMutableBytes({ pread(fd, $0.baseAddress!, size, off_t(start)) }) == size else { return }
        var at = 16
        while at + 16 <= size {
            let index = Int(bytes[at]) | Int(bytes[at + 1]) << 8
            let declared = littleEndian(bytes, at: at + 8)
            if index == 0 {
                // The free-space object ends the list and declares exactly the bytes left (its header included);
                // libhdf5 1.10 loops forever on one that declares fewer.
                guard declared == UInt64(size - at) else {
                    throw FoldKitError(
                        .badInput,
                        "HDF5 global heap free space declares \(declared) bytes, not the \(size - at) left in its collection (the file is damaged)",
                        file: displayName, byteOffset: start + at + 8, expected: "\(size - at) bytes", found: "\(declared)")
                }
                return
            }
            guard declared <= UInt64(size - at - 16) else {
                throw FoldKitError(
                    .badInput, "HDF5 global heap object \(index) declares \(declared) bytes, past the end of its collection (the file is damaged)",
                    file: displayName, byteOffset: start + at + 8, expected: "at most \(size - at - 16) bytes", found: "\(declared)")
            }
            at += 16 + (Int(declared) + 7) / 8 * 8
        }
    }

    private static func littleEndian(_ bytes: [UInt8], at offset: Int) -> UInt64 {
        (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[offset + $1]) << (8 * UInt64($1)) }
    }
}
