import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit
@testable import FoldKitIO

/// .npy headers are read as numpy reads them, and nothing looser: the three keys, `fortran_order`
/// False (not 0, not 1), a tuple of integers, only spaces and newlines after the dict.
final class NPYHeaderTests: XCTestCase {
    /// Version 1.0 bytes around `dict` (padded to 64 with spaces and a newline unless `raw`).
    private func bytes(_ dict: String, raw: Bool = false) -> [UInt8] {
        var text = dict
        if !raw {
            let total = 10 + text.utf8.count + 1
            text += String(repeating: " ", count: (total + 63) / 64 * 64 - total) + "\n"
        }
        let length = text.utf8.count
        return [0x93] + Array("NUMPY".utf8) + [1, 0, UInt8(length & 0xff), UInt8(length >> 8)] + Array(text.utf8)
    }

    func testNumpysOwnHeaderReads() throws {
        let header = try NPYHeader.parse([UInt8](NPYFile.header(descr: "<f4", shape: [1, 3, 4, 5])), file: "t")
        XCTAssertEqual(header.shape, [1, 3, 4, 5])
        XCTAssertEqual(header.descr, "<f4")
        XCTAssertEqual(header.dataOffset, 128)
        // Any key order, a one-element tuple, no trailing comma.
        let reordered = try NPYHeader.parse(bytes("{'shape': (7,), 'fortran_order': False, 'descr': '<f8'}"), file: "t")
        XCTAssertEqual(reordered.shape, [7])
        XCTAssertEqual(reordered.descr, "<f8")
        // numpy reads a header without the final newline too.
        XCTAssertEqual(try NPYHeader.parse(bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", raw: true), file: "t").shape, [2])
    }

    func testLooseHeadersAreRefused() {
        let refused: [(String, [UInt8])] = [
            ("fortran_order 1", bytes("{'descr': '<f4', 'fortran_order': 1, 'shape': (2,), }")),
            ("fortran_order True", bytes("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }")),
            ("junk after the shape", bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } junk")),
            ("an extra key", bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'x': (1,), }")),
            ("a missing key", bytes("{'descr': '<f4', 'shape': (2,), }")),
            ("a repeated key", bytes("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (2,), }")),
            ("a negative size", bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }")),
            ("a shape that is not a tuple", bytes("{'descr': '<f4', 'fortran_order': False, 'shape': [2], }")),
        ]
        for (what, header) in refused {
            XCTAssertThrowsError(try NPYHeader.parse(header, file: "t"), what) { error in
                XCTAssertEqual((error as? FoldKitError)?.kind, .badInput, what)
                XCTAssertNotNil((error as? FoldKitError)?.byteOffset, what)
            }
        }
    }

    /// An input array of the wrong shape is refused from its header: a 6 GiB array (a sparse file, no
    /// disk used) is never read, where reading it would take the whole of the memory.
    func testAWrongShapedInputIsRefusedBeforeItsValuesAreRead() throws {
        let folder = try TestData.temporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("huge.npy").path
        let shape = [1, 3, 32768, 16384]
        let header = NPYFile.header(descr: "<f4", shape: shape)
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: header))
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        try handle.truncate(atOffset: UInt64(header.count) + UInt64(shape.reduce(1, *)) * 4)
        try handle.close()
        let model = TestData.fixture("keras/merges.keras").path
        XCTAssertThrowsError(try ModelLoader.load(paths: [model], inputPath: path)) { error in
            let e = error as? FoldKitError
            XCTAssertEqual(e?.kind, .usage, "\(error)")
            XCTAssertTrue(e?.message.contains("input shape does not match") == true, "\(error)")
        }
    }

    /// numpy's default dtype is float64: an input array of it is taken, converted to float32.
    func testFloat64InputArraysAreConverted() throws {
        let array = try InputArray.read(path: TestData.fixture("npy/nchw_f8.npy").path)
        XCTAssertEqual(array.shape, [1, 3, 4, 5])
        XCTAssertEqual(array.values[59], Float(59.0 / 7.0))
        let header = try InputArray.header(path: TestData.fixture("npy/nchw_f8.npy").path)
        XCTAssertEqual(header.shape, [1, 3, 4, 5])
        XCTAssertTrue(header.values.isEmpty)
    }
}
