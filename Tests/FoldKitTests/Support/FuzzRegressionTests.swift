import FoldKitCore
import FoldKitKeras
import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit
@testable import FoldKitIO

/// Inputs the libFuzzer targets (Fuzz/Targets) once crashed or leaked on, kept in
/// Fixtures/malformed/fuzz/<target>/ (Docs/Security.md, "Fuzzing and sanitizers"). Each must now
/// give a `FoldKitError` for bad input, not a trap.
final class FuzzRegressionTests: XCTestCase {
    private func inputs(_ target: String, file: StaticString = #filePath, line: UInt = #line) throws -> [URL] {
        let folder = TestData.fixture("malformed/fuzz/\(target)")
        let found = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        XCTAssertFalse(found.isEmpty, "no regression inputs in \(folder.path)", file: file, line: line)
        return found
    }

    /// Raw HDF5 inputs FuzzHDF5File found: a global heap whose free-space object declares 0 bytes made
    /// libhdf5 1.10 loop forever in H5HG_read, and is refused naming the byte offset; a dataset whose
    /// stored size is near Int.max overflowed the expansion check (a trap). Each is read or refused with
    /// a FoldKitError.
    func testHDF5FindingsAreReadOrRefused() throws {
        for url in try inputs("FuzzHDF5File") {
            do {
                _ = try KerasReader.read(paths: [url.path])
            } catch let error as FoldKitError {
                XCTAssertEqual(error.kind, .badInput, "\(url.lastPathComponent): \(error)")
            }
        }
        let loop = TestData.fixture("malformed/fuzz/FuzzHDF5File/free-space-declares-zero.h5")
        XCTAssertThrowsError(try KerasReader.read(paths: [loop.path])) { error in
            XCTAssertTrue("\(error)".contains("global heap free space"), "\(error)")
            XCTAssertNotNil((error as? FoldKitError)?.byteOffset, "\(error)")
        }
    }

    /// A ')' before the '(' of the shape once made a reversed range (a trap); shapes whose element or
    /// byte count overflows Int once trapped in the multiplication.
    func testNPYReaderRefusesEveryFuzzFinding() throws {
        for url in try inputs("FuzzNPYReader") {
            XCTAssertThrowsError(try NPYFile.parse(Data(contentsOf: url), file: url.path), url.lastPathComponent) { error in
                XCTAssertEqual((error as? FoldKitError)?.kind, .badInput, "\(url.lastPathComponent): \(error)")
            }
        }
    }

    /// The overflow cases say so, rather than reporting a data-size mismatch computed with a wrapped product.
    func testNPYShapeOverflowIsNamed() throws {
        let url = TestData.fixture("malformed/fuzz/FuzzNPYReader/shape-element-count-overflows.npy")
        XCTAssertThrowsError(try NPYFile.parse(Data(contentsOf: url), file: url.path)) { error in
            // The element count overflows Int; the reader must say so against the file's size, not trap.
            XCTAssertEqual((error as? FoldKitError)?.kind, .badInput, "\(error)")
            XCTAssertTrue("\(error)".contains("shape is larger than the file"), "\(error)")
        }
    }

    /// A SeparableConv2D with strides [0, 1] and 'same' padding once divided by zero.
    func testKerasZeroStrideIsNamed() throws {
        let url = TestData.fixture("malformed/fuzz/FuzzKerasConfig/separable-conv-stride-zero.json")
        let weights = TestData.fixture("keras/dag.tfkeras.weights.h5").path
        XCTAssertThrowsError(try KerasReader.read(paths: [url.path, weights])) { error in
            XCTAssertEqual((error as? FoldKitError)?.kind, .badInput, "\(error)")
            XCTAssertTrue("\(error)".contains("strides must be positive"), "\(error)")
        }
    }

    /// An empty model description (Foundation leaks a buffer reading it; see Fuzz/lsan.supp) and the
    /// zero stride below are refused.
    func testKerasConfigReaderRefusesEveryFuzzFinding() throws {
        let weights = TestData.fixture("keras/dag.tfkeras.weights.h5").path
        for url in try inputs("FuzzKerasConfig") {
            XCTAssertThrowsError(try KerasReader.read(paths: [url.path, weights]), url.lastPathComponent) { error in
                XCTAssertNotNil(error as? FoldKitError, "\(url.lastPathComponent): \(error)")
            }
        }
    }
}
