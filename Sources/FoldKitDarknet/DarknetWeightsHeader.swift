import FoldKitCore
import Foundation

/// The header at the start of a Darknet .weights file, all little-endian:
///
///     int32 major, int32 minor, int32 revision,
///     seen: uint64 when major*10 + minor >= 2 and major < 1000 and minor < 1000, else uint32
///
/// so headers are 20 bytes (Darknet 0.2.x and AlexeyAB files) or 16 bytes (older files).
/// The float32 tensors follow immediately.
struct DarknetWeightsHeader: Sendable, Hashable {
    var major: Int32
    var minor: Int32
    var revision: Int32
    /// Number of training images seen.
    var seen: UInt64
    /// 16 or 20.
    var byteCount: Int

    init(major: Int32, minor: Int32, revision: Int32, seen: UInt64) {
        self.major = major
        self.minor = minor
        self.revision = revision
        self.seen = seen
        self.byteCount = DarknetWeightsHeader.seenIs64Bit(major: major, minor: minor) ? 20 : 16
    }

    /// Whether `seen` is stored as 64 bits for this version (see the type's documentation).
    static func seenIs64Bit(major: Int32, minor: Int32) -> Bool {
        Int(major) * 10 + Int(minor) >= 2 && major < 1000 && minor < 1000
    }

    /// Darknet stores [connected] weights transposed ([in][out]) when major or minor exceeds 1000.
    var connectedWeightsTransposed: Bool { major > 1000 || minor > 1000 }

    /// `0.2.5`
    var version: String { "\(major).\(minor).\(revision)" }

    /// The header bytes as Darknet writes them.
    var encoded: Data {
        var data = Data()
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
        }
        append(major)
        append(minor)
        append(revision)
        if byteCount == 20 { append(seen) } else { append(UInt32(truncatingIfNeeded: seen)) }
        return data
    }

    /// Decodes a header from the first bytes of a weights file.
    /// - Throws: `.badInput` naming `path` when `bytes` is shorter than the header it announces.
    static func decode(_ bytes: Data, path: String) throws -> DarknetWeightsHeader {
        let raw = [UInt8](bytes.prefix(20))
        func int32(at offset: Int) -> Int32 {
            var value: UInt32 = 0
            for i in 0..<4 { value |= UInt32(raw[offset + i]) << (8 * i) }
            return Int32(bitPattern: value)
        }
        guard raw.count >= 12 else {
            throw FoldKitError(
                .badInput, "weights file too short for its header (major, minor, revision, seen)",
                file: path, byteOffset: 0, expected: "at least 16 bytes", found: "\(raw.count) bytes")
        }
        let major = int32(at: 0), minor = int32(at: 4), revision = int32(at: 8)
        let wide = seenIs64Bit(major: major, minor: minor)
        let needed = wide ? 20 : 16
        guard raw.count >= needed else {
            throw FoldKitError(
                .badInput, "weights file too short for its header (version \(major).\(minor).\(revision) stores 'seen' as \(wide ? 64 : 32) bits)",
                file: path, byteOffset: 12, expected: "\(needed) bytes", found: "\(raw.count) bytes")
        }
        var seen: UInt64 = 0
        for i in 0..<(wide ? 8 : 4) { seen |= UInt64(raw[12 + i]) << (8 * i) }
        return DarknetWeightsHeader(major: major, minor: minor, revision: revision, seen: seen)
    }

    /// Reads the header of the weights file at `path` (only its first 20 bytes are read).
    static func read(path: String) throws -> DarknetWeightsHeader {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw FoldKitError(.io, "cannot open the weights file", file: path)
        }
        defer { try? handle.close() }
        let bytes: Data
        do {
            bytes = try handle.read(upToCount: 20) ?? Data()
        } catch {
            throw FoldKitError(.io, "cannot read the weights file: \(error)", file: path)
        }
        return try decode(bytes, path: path)
    }
}
