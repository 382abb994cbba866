import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit
@testable import FoldKitIO

/// The .npy writer must produce exactly numpy's bytes; the files under Fixtures/npy were written by
/// numpy itself (Fixtures/npy/generate.py).
final class NPYTests: XCTestCase {
    private func numpyValues(_ count: Int) -> [Float] {
        (0..<count).map { Float($0) * Float(0.37) - Float(1.5) }
    }

    func testEncodingIsByteIdenticalToNumpySave() throws {
        let cases: [(String, [Int])] = [("vector", [5]), ("nchw", [1, 3, 4, 5]), ("scalar_like", [1]), ("wide", [2, 70])]
        for (name, shape) in cases {
            let expected = try Data(contentsOf: TestData.fixture("npy/\(name)_f4.npy"))
            let ours = NPYFile.encode(values: numpyValues(shape.reduce(1, *)), shape: shape)
            XCTAssertEqual(ours, expected, "\(name): bytes differ from numpy.save")
        }
    }

    func testReadsFloat32AndFloat64() throws {
        let f4 = try NPYFile.read(path: TestData.fixture("npy/nchw_f4.npy").path)
        XCTAssertEqual(f4.shape, [1, 3, 4, 5])
        XCTAssertEqual(f4.values, numpyValues(60))
        let f8 = try NPYFile.read(path: TestData.fixture("npy/nchw_f8.npy").path)
        XCTAssertEqual(f8.shape, [1, 3, 4, 5])
        XCTAssertEqual(f8.values[59], Float(59.0 / 7.0))
    }

    /// numpy's default dtype, float64, in both byte orders as numpy writes them: the same float32 values
    /// (rounded to nearest), and a note saying so with the largest relative rounding measured.
    func testReadsFloat64InBothByteOrdersAndStatesTheCast() throws {
        let little = try NPYFile.parse(Data(contentsOf: TestData.fixture("npy/nchw_f8.npy")), file: "nchw_f8.npy")
        let big = try NPYFile.parse(Data(contentsOf: TestData.fixture("npy/nchw_f8_be.npy")), file: "nchw_f8_be.npy")
        XCTAssertEqual(little.descr, "<f8")
        XCTAssertEqual(big.descr, ">f8")
        let expected = (0..<60).map { Float(Double($0) / 7.0) }
        XCTAssertEqual(little.values, expected)
        XCTAssertEqual(big.values, expected)
        // i / 7 is not a float32 number for i not a multiple of 7: the largest rounding is measured, not assumed.
        var largest = 0.0
        for i in 1..<60 {
            let exact = Double(i) / 7.0
            largest = max(largest, abs(Double(Float(exact)) - exact) / exact)
        }
        XCTAssertGreaterThan(largest, 0)
        let note = try XCTUnwrap(little.note)
        XCTAssertTrue(note.hasPrefix("float64 (<f8) cast to float32"), note)
        XCTAssertTrue(note.contains("largest relative rounding \(String(format: "%.3g", largest))"), note)
        XCTAssertEqual(big.note, note.replacingOccurrences(of: "<f8", with: ">f8"))
        XCTAssertNil(try NPYFile.parse(NPYFile.encode(values: [1, 2], shape: [2]), file: "memory").note, "float32 is taken as stored")
    }

    /// Big-endian float32 and float16 read as their little-endian twins.
    func testReadsBigEndianFloat32AndFloat16() throws {
        let values: [Float] = [1, -2.5, 0.099975586, 65504]
        func file(_ descr: String, _ bytes: [UInt8]) -> Data { NPYFile.header(descr: descr, shape: [4]) + Data(bytes) }
        let f4 = values.flatMap { v -> [UInt8] in withUnsafeBytes(of: v.bitPattern.bigEndian, Array.init) }
        XCTAssertEqual(try NPYFile.parse(file(">f4", f4), file: "be4").values, values)
        let f2 = values.flatMap { v -> [UInt8] in withUnsafeBytes(of: Float16(v).bitPattern.bigEndian, Array.init) }
        let half = try NPYFile.parse(file(">f2", f2), file: "be2")
        XCTAssertEqual(half.values, values.map { Float(Float16($0)) })
        XCTAssertEqual(half.note, "float16 (>f2) widened to float32 (exact)")
    }

    /// A float64 value float32 cannot hold (past 3.4028235e38) is refused naming the file, the element
    /// (flat index and coordinates) and its byte offset; NaN and infinity pass as in a float32 file.
    func testFloat64BeyondFloat32RangeIsRefusedNamingTheElement() throws {
        let url = TestData.fixture("npy/overflow_f8.npy")
        XCTAssertThrowsError(try NPYFile.parse(Data(contentsOf: url), file: "overflow_f8.npy")) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("overflow_f8.npy"), text)
            XCTAssertTrue(text.contains("element 4 [1, 1]"), text)
            XCTAssertTrue(text.contains("at byte \(128 + 4 * 8)"), text)
            XCTAssertTrue(text.contains("1e+39"), text)
        }
        var bytes = NPYFile.header(descr: "<f8", shape: [3])
        for v in [Double.nan, -.infinity, 3.4028235e38] { withUnsafeBytes(of: v.bitPattern.littleEndian) { bytes.append(contentsOf: $0) } }
        let kept = try NPYFile.parse(bytes, file: "memory").values
        XCTAssertTrue(kept[0].isNaN)
        XCTAssertEqual(kept[1], -.infinity)
        XCTAssertEqual(kept[2], .greatestFiniteMagnitude)
    }

    func testRefusesFortranOrderAndIntegers() throws {
        XCTAssertThrowsError(try NPYFile.read(path: TestData.fixture("npy/fortran.npy").path)) { error in
            XCTAssertTrue("\(error)".contains("Fortran"), "\(error)")
        }
        XCTAssertThrowsError(try NPYFile.read(path: TestData.fixture("npy/int32.npy").path)) { error in
            XCTAssertTrue("\(error)".contains("<i4"), "\(error)")
        }
    }

    func testRoundTripThroughParse() throws {
        let values: [Float] = [1, -2.5, .pi, 1e-30]
        let parsed = try NPYFile.parse(NPYFile.encode(values: values, shape: [2, 2]), file: "memory")
        XCTAssertEqual(parsed.shape, [2, 2])
        XCTAssertEqual(parsed.values, values)
        XCTAssertEqual(parsed.descr, "<f4")
    }
}
