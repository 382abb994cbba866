import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKitTFLite

/// `FlatBufferBuilder` against flatc's own decoding: a schema of every kind of field the LiteRT writer uses
/// (scalars of 1, 2, 4 and 8 bytes with and without defaults, a float, strings, vectors of scalars, of bytes
/// and of tables, a union, a table reached through several levels, the file identifier), a buffer built
/// with it, and flatc's JSON of that buffer compared with what was written.
final class FlatBufferBuilderTests: XCTestCase {
    private let schema = """
        namespace test;
        file_identifier "TST1";
        table Leaf { value:int; label:string; }
        table Other { weight:double = 2.5; }
        union Choice { Leaf, Other }
        table Root {
          small:byte; flag:bool; half:ushort = 7; count:int; big:ulong; ratio:float;
          name:string; numbers:[int]; raw:[ubyte]; leaves:[Leaf];
          choice:Choice; skipped:int = 42; forced:ulong;
        }
        root_type Root;
        """

    private func schemaFile() throws -> URL {
        let dir = try TestData.temporaryDirectory("foldkit-flatbuffer-schema")
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("test.fbs")
        try Data(schema.utf8).write(to: url)
        return url
    }

    /// Root's fields: 0 small, 1 flag, 2 half, 3 count, 4 big, 5 ratio, 6 name, 7 numbers, 8 raw, 9 leaves,
    /// 10 choice_type, 11 choice, 12 skipped, 13 forced.
    private func sample(raw: [UInt8]) -> [UInt8] {
        var b = FlatBufferBuilder(capacity: 16)  // small, so the buffer grows many times
        let leaves = (0..<3).map { i -> FlatBufferBuilder.Offset in
            let label = b.string("leaf \(i) é")
            b.startTable()
            b.add(0, Int32(-7 * i))
            b.add(1, label)
            return b.endTable()
        }
        let name = b.string("root")
        let numbers = b.vector([Int32(1), -2, 300_000, Int32.min])
        let bytes = b.bytes(raw, alignment: 16)
        let leafVector = b.vector(leaves)
        let choiceLabel = b.string("chosen")
        b.startTable()
        b.add(0, Int32(99))
        b.add(1, choiceLabel)
        let choice = b.endTable()
        b.startTable()
        b.add(0, Int8(-5))
        b.add(1, UInt8(1))
        b.add(2, UInt16(7), default: 7)
        b.add(3, Int32(123_456))
        b.add(4, UInt64(1) << 40 + 3)
        b.add(5, float: 0.1)
        b.add(6, name)
        b.add(7, numbers)
        b.add(8, bytes)
        b.add(9, leafVector)
        b.add(10, UInt8(1))
        b.add(11, choice)
        b.add(12, Int32(42), default: 42)
        b.add(13, UInt64(0), force: true)
        let root = b.endTable()
        return b.finish(root: root, identifier: "TST1")
    }

    func testFlatcDecodesEveryKindOfField() throws {
        let raw = (0..<37).map { UInt8(truncatingIfNeeded: $0 * 7) }
        let data = sample(raw: raw)
        XCTAssertEqual(Array(data[4..<8]), Array("TST1".utf8), "the file identifier follows the root offset")
        let json = try FlatcDecoder.decode(data, schema: try schemaFile())
        XCTAssertEqual(json["small"] as? Int, -5)
        XCTAssertEqual(json["flag"] as? Bool, true)
        XCTAssertEqual(json["half"] as? Int, 7, "a default left out reads as the default")
        XCTAssertEqual(json["count"] as? Int, 123_456)
        XCTAssertEqual((json["big"] as? NSNumber)?.uint64Value, UInt64(1) << 40 + 3)
        XCTAssertEqual((json["ratio"] as? NSNumber)?.floatValue, 0.1)
        XCTAssertEqual(json["name"] as? String, "root")
        XCTAssertEqual(json["numbers"] as? [Int], [1, -2, 300_000, Int(Int32.min)])
        XCTAssertEqual(json["raw"] as? [Int], raw.map(Int.init))
        let leaves = try XCTUnwrap(json["leaves"] as? [[String: Any]])
        XCTAssertEqual(leaves.map { $0["value"] as? Int }, [0, -7, -14])
        XCTAssertEqual(leaves.map { $0["label"] as? String }, ["leaf 0 é", "leaf 1 é", "leaf 2 é"])
        XCTAssertEqual(json["choice_type"] as? String, "Leaf")
        let choice = try XCTUnwrap(json["choice"] as? [String: Any])
        XCTAssertEqual(choice["value"] as? Int, 99)
        XCTAssertEqual(choice["label"] as? String, "chosen")
        XCTAssertEqual(json["skipped"] as? Int, 42)
        XCTAssertEqual(json["forced"] as? Int, 0)
    }

    /// Tables of the same field layout share one vtable: three leaves written alike cost one vtable, so the
    /// second and third add only their own bytes (flatc reads them all: `testFlatcDecodesEveryKindOfField`).
    func testTablesOfTheSameLayoutShareAVtable() {
        func size(leaves: Int) -> Int {
            var b = FlatBufferBuilder()
            let tables = (0..<leaves).map { i -> FlatBufferBuilder.Offset in
                b.startTable()
                b.add(0, Int32(i + 1))
                return b.endTable()
            }
            let vector = b.vector(tables)
            b.startTable()
            b.add(9, vector)
            return b.finish(root: b.endTable(), identifier: "TST1").count
        }
        // A leaf: soffset + int32 = 8 bytes and a 4-byte reference in the vector, 12 bytes; its own vtable
        // (u16 x 3 = 6 bytes, padded to 8) would make it 20. The buffer's end is padded to 8 bytes.
        let added = size(leaves: 9) - size(leaves: 1)
        XCTAssertGreaterThanOrEqual(added, 8 * 12)
        XCTAssertLessThanOrEqual(added, 8 * 12 + 8, "one vtable for the nine leaves (each its own: 8 * 20)")
    }

    /// The field left out at its default is absent from the vtable, and the forced one present: the buffer
    /// is smaller by the omitted field than with it written.
    func testDefaultsAreLeftOutUnlessForced() {
        var with = FlatBufferBuilder()
        with.startTable()
        with.add(0, Int32(42), default: 42, force: true)
        let a = with.endTable()
        let forced = with.finish(root: a, identifier: "TST1")
        var without = FlatBufferBuilder()
        without.startTable()
        without.add(0, Int32(42), default: 42)
        let b = without.endTable()
        let omitted = without.finish(root: b, identifier: "TST1")
        XCTAssertGreaterThan(forced.count, omitted.count)
    }

    /// A byte vector's data starts at a multiple of the alignment asked from the start of the finished
    /// buffer, whatever was written before it (every length of a preceding string from 0 to 40).
    func testByteVectorsAreAlignedFromTheStartOfTheBuffer() {
        for prefix in 0...40 {
            var b = FlatBufferBuilder(capacity: 8)
            let text = b.string(String(repeating: "x", count: prefix))
            let data = b.bytes([1, 2, 3, 4, 5], alignment: 16)
            b.startTable()
            b.add(0, text)
            b.add(1, data)
            let root = b.endTable()
            let buffer = b.finish(root: root, identifier: "TST1")
            let start = (0..<(buffer.count - 4)).first { i in buffer[i..<(i + 5)].elementsEqual([1, 2, 3, 4, 5]) }
            XCTAssertEqual(start.map { $0 % 16 }, 0, "prefix \(prefix): data at \(String(describing: start))")
            XCTAssertEqual(buffer.count % 16, 0, "the buffer's size is a multiple of its largest alignment")
        }
    }
}
