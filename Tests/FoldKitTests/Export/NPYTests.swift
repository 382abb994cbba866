import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit

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
