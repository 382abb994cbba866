import Foundation

/// A FlatBuffers encoder (google.github.io/flatbuffers, "Internals"), enough for LiteRT's schema
/// (Fixtures/litert/schema.fbs): little-endian scalars, strings, vectors of scalars and of offsets, tables
/// with their vtables, unions (a ubyte type field beside the offset field) and the file identifier.
///
/// Built back to front as FlatBuffers' own builders do: `bytes` fills from its end towards its start, and an
/// `Offset` is a position counted from the end of the buffer, so a reference written later (nearer the
/// start) to something written earlier is the positive distance `here - there` (uoffset_t, 32 bits, relative
/// to the reference's own address). Alignment: every scalar sits at a multiple of its size from the end of
/// the finished buffer, which `finish` aligns to the largest alignment used, so it holds from the start too.
///
/// A table is [soffset_t to its vtable][fields...]; its vtable [vtable bytes: u16][table bytes: u16]
/// [field i's offset from the table start: u16, 0 when absent] is written just before it, so the soffset
/// (table address - vtable address) is positive. A table whose vtable equals one written before (same field
/// layout) points at that one instead, as FlatBuffers' builders do: the soffset is then negative, the
/// vtable lying after the table. Checked by the tests against `flatc --json` and LiteRT's own flatc-generated
/// Python reader.
struct FlatBufferBuilder {
    /// A position from the end of the buffer (what FlatBuffers' builders call an offset).
    struct Offset: Hashable {
        fileprivate let value: Int
    }

    private var storage: [UInt8]
    private var head: Int
    private var largestAlignment = 1
    private var tableStart: Int?
    private var fields: [(id: Int, at: Int)] = []
    /// The vtables written, by content, at their positions.
    private var vtables: [[UInt16]: Int] = [:]

    init(capacity: Int = 1024) {
        storage = [UInt8](repeating: 0, count: max(capacity, 16))
        head = storage.count
    }

    /// Bytes written so far.
    var size: Int { storage.count - head }

    private mutating func grow(_ needed: Int) {
        guard head < needed else { return }
        let old = storage.count
        let larger = max(old * 2, old + needed)
        var fresh = [UInt8](repeating: 0, count: larger)
        fresh.replaceSubrange((larger - size)..<larger, with: storage[head..<old])
        head = larger - size
        storage = fresh
    }

    /// Zero padding so that, once `following` more bytes are written, the size is a multiple of `alignment`.
    mutating func align(_ alignment: Int, following: Int = 0) {
        largestAlignment = max(largestAlignment, alignment)
        let padding = (alignment - ((size + following) % alignment)) % alignment
        grow(padding + following)
        for _ in 0..<padding {
            head -= 1
            storage[head] = 0
        }
    }

    private mutating func putBytes<T: FixedWidthInteger>(_ value: T) {
        grow(MemoryLayout<T>.size)
        var v = value.littleEndian
        withUnsafeBytes(of: &v) { raw in
            head -= raw.count
            for (i, byte) in raw.enumerated() { storage[head + i] = byte }
        }
    }

    /// A scalar, aligned to its size.
    private mutating func scalar<T: FixedWidthInteger>(_ value: T) {
        align(MemoryLayout<T>.size)
        putBytes(value)
    }

    /// A uoffset_t to `target` written here: the distance from this reference to the target.
    private mutating func reference(_ target: Offset) {
        align(4)
        putBytes(UInt32(size + 4 - target.value))
    }

    /// A string: [length: u32][UTF-8 bytes][0].
    mutating func string(_ text: String) -> Offset {
        let utf8 = Array(text.utf8)
        align(4, following: utf8.count + 1)
        grow(utf8.count + 1)
        head -= 1
        storage[head] = 0
        head -= utf8.count
        storage.replaceSubrange(head..<(head + utf8.count), with: utf8)
        putBytes(UInt32(utf8.count))
        return Offset(value: size)
    }

    /// A vector of scalars: [count: u32][elements], the elements aligned to `alignment` (at least their size).
    mutating func vector<T: FixedWidthInteger>(_ elements: [T], alignment: Int = 1) -> Offset {
        let width = MemoryLayout<T>.size
        align(max(alignment, width, 4), following: elements.count * width)
        align(4, following: elements.count * width)
        for element in elements.reversed() { putBytes(element) }
        putBytes(UInt32(elements.count))
        return Offset(value: size)
    }

    /// A vector of bytes, the data aligned to `alignment` from the start of the buffer.
    mutating func bytes(_ data: [UInt8], alignment: Int = 1) -> Offset {
        align(max(alignment, 4), following: data.count)
        grow(data.count)
        head -= data.count
        storage.replaceSubrange(head..<(head + data.count), with: data)
        putBytes(UInt32(data.count))
        return Offset(value: size)
    }

    /// A vector of references to tables or strings written before.
    mutating func vector(_ offsets: [Offset]) -> Offset {
        align(4, following: offsets.count * 4)
        for offset in offsets.reversed() { reference(offset) }
        putBytes(UInt32(offsets.count))
        return Offset(value: size)
    }

    /// Starts a table: the fields added next (`add`) belong to it until `endTable`.
    mutating func startTable() {
        precondition(tableStart == nil, "FlatBuffers tables do not nest: finish the inner one first")
        tableStart = size
        fields = []
    }

    /// A scalar field `id` (its index among the table's fields, a union taking two: type, then value),
    /// left out when it equals `defaultValue` (the reader then gives the default) unless `force`d.
    mutating func add<T: FixedWidthInteger>(_ id: Int, _ value: T, default defaultValue: T = 0, force: Bool = false) {
        guard force || value != defaultValue else { return }
        scalar(value)
        fields.append((id, size))
    }

    /// A float field, by its IEEE bits.
    mutating func add(_ id: Int, float value: Float, default defaultValue: Float = 0) {
        guard value.bitPattern != defaultValue.bitPattern else { return }
        scalar(value.bitPattern)
        fields.append((id, size))
    }

    /// A field referring to a string, vector or table written before the table started.
    mutating func add(_ id: Int, _ target: Offset) {
        reference(target)
        fields.append((id, size))
    }

    /// Ends the table: writes its soffset and its vtable, returns the table.
    mutating func endTable() -> Offset {
        guard let start = tableStart else { preconditionFailure("endTable without startTable") }
        scalar(Int32(0))
        let table = size
        let slots = (fields.map(\.id).max() ?? -1) + 1
        var entries = [UInt16](repeating: 0, count: slots)
        for field in fields { entries[field.id] = UInt16(table - field.at) }
        let content = [UInt16((slots + 2) * 2), UInt16(table - start)] + entries
        let vtable: Int
        if let shared = vtables[content] {
            vtable = shared
        } else {
            for entry in content.reversed() { putBytes(entry) }
            vtable = size
            vtables[content] = vtable
        }
        // The table's soffset: table address - vtable address (end - table) - (end - vtable).
        let at = storage.count - table
        withUnsafeBytes(of: Int32(vtable - table).littleEndian) { raw in
            for (i, byte) in raw.enumerated() { storage[at + i] = byte }
        }
        tableStart = nil
        fields = []
        return Offset(value: table)
    }

    /// The finished buffer: [root uoffset][file identifier (4 ASCII bytes)] then everything written.
    mutating func finish(root: Offset, identifier: String) -> [UInt8] {
        let id = Array(identifier.utf8)
        precondition(id.count == 4, "a FlatBuffers file identifier has 4 bytes")
        align(max(largestAlignment, 4), following: 8)
        grow(4)
        head -= 4
        storage.replaceSubrange(head..<(head + 4), with: id)
        putBytes(UInt32(size + 4 - root.value))
        return Array(storage[head...])
    }
}
