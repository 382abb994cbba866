import FoldKitTestSupport
import XCTest

@testable import FoldKitCore
@testable import FoldKitKeras

/// The libhdf5 wrapper against Fixtures/keras/hdf5_wrapper.h5, written by h5py in generate.py
/// (expected values are the ones the script stores).
final class HDF5FileTests: XCTestCase {
    private func open() throws -> HDF5File {
        try HDF5File(path: TestData.fixture("keras/hdf5_wrapper.h5").path)
    }

    func testReadsFloat32Float16Float64DatasetsWithShapes() throws {
        let file = try open()
        let f32 = try file.readFloats("f32")
        XCTAssertEqual(f32.shape, [2, 3])
        XCTAssertEqual(f32.values, [0, 0.25, 0.5, 0.75, 1.0, 1.25])
        let f16 = try file.readFloats("group/nested/f16")
        XCTAssertEqual(f16.shape, [3])
        XCTAssertEqual(f16.values, [1.5, -2.25, 65504])
        let f64 = try file.readFloats("group/f64")
        XCTAssertEqual(f64.shape, [2, 1])
        XCTAssertEqual(f64.values, [Float(1e-3), -7.5])
        XCTAssertEqual(try file.readFloats("name:0").values, [42])
        XCTAssertEqual(try file.shape(ofDataset: "f32"), [2, 3])
    }

    func testStringAttributesOfEveryKind() throws {
        let file = try open()
        XCTAssertEqual(try file.stringAttribute("fixed_nullpad"), "nullpad")
        XCTAssertEqual(try file.stringAttribute("fixed_nullterm"), "nullterm")
        XCTAssertEqual(try file.stringAttribute("variable"), "variable length \u{e9}")
        XCTAssertEqual(try file.stringsAttribute("fixed_array"), ["conv2d_1", "bn", "dense_10"])
        XCTAssertEqual(try file.stringsAttribute("variable_array"), ["kernel:0", "bias:0"])
        XCTAssertEqual(try file.stringsAttribute("empty"), [])
        XCTAssertEqual(try file.stringsAttribute("layer_names0", at: "group"), ["a", "b"])
    }

    func testGroupsMembersAndExistence() throws {
        let file = try open()
        XCTAssertTrue(file.exists("group/nested/f16"))
        XCTAssertFalse(file.exists("group/missing/f16"))
        XCTAssertFalse(file.exists("nothing"))
        XCTAssertTrue(file.isGroup("group"))
        XCTAssertFalse(file.isGroup("f32"))
        XCTAssertEqual(try file.memberNames("group"), ["f64", "nested"])
        XCTAssertTrue(file.hasAttribute("variable"))
        XCTAssertFalse(file.hasAttribute("layer_names"))
    }

    func testErrorsNameTheFileAndObject() throws {
        let file = try open()
        XCTAssertThrowsError(try file.readFloats("ints")) { error in
            let e = error as? FoldKitError
            XCTAssertEqual(e?.kind, .badInput)
            XCTAssertTrue(e?.description.contains("'ints'") ?? false, "\(error)")
            XCTAssertTrue(e?.file?.hasSuffix("hdf5_wrapper.h5") ?? false)
        }
        // readNumbers takes them, converted and marked (Normalization's sample count is an int64).
        let ints = try file.readNumbers("ints")
        XCTAssertEqual(ints.shape, [3])
        XCTAssertEqual(ints.values, [1, 2, 3])
        XCTAssertTrue(ints.isInteger)
        XCTAssertFalse(try file.readNumbers("f32").isInteger)
        XCTAssertThrowsError(try file.readFloats("group/absent")) { error in
            XCTAssertTrue("\(error)".contains("group/absent"), "\(error)")
        }
        XCTAssertThrowsError(try file.stringAttribute("number")) { error in
            XCTAssertTrue("\(error)".contains("not a string"), "\(error)")
        }
        XCTAssertThrowsError(try file.stringAttribute("missing_attribute"))
        XCTAssertThrowsError(try HDF5File(path: TestData.fixture("keras/generate.py").path)) { error in
            XCTAssertTrue("\(error)".contains("not an HDF5 file"), "\(error)")
        }
        XCTAssertThrowsError(try HDF5File(path: "/nonexistent/model.h5")) { error in
            XCTAssertEqual((error as? FoldKitError)?.kind, .io)
        }
    }
}
