import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit

/// The .pb files `foldkit fixtures --onnx` writes against what onnx's own reader read from them:
/// Fixtures/onnx/tensorproto-check.json, written by Fixtures/onnx/check_tensorproto.py (onnx's
/// `numpy_helper.to_array(load_tensor(...))` against `numpy.load` of the matching .npy). The packs are
/// made again with the record's own commands; every .pb must have the dims, data_type, name and array
/// bytes (SHA-256 of raw_data) onnx found, so the test fails if FoldKit's encoding drifts from what onnx read.
final class FixturesONNXRecordTests: XCTestCase {
    private struct Record: Decodable {
        struct Pack: Decodable {
            var name: String
            var seedWeights: [String]?
            var fixtures: [String]
            var tensors: [Tensor]
        }
        struct Tensor: Decodable {
            var file: String
            var npy: String
            var dims: [Int]
            var dataType: Int
            var dtype: String
            var name: String
            var sha256: String
            var equal: Bool
        }
        var onnx: String
        var packs: [Pack]
    }

    func testEveryProtoMatchesWhatOnnxRead() throws {
        let record = try JSONDecoder().decode(Record.self, from: Data(contentsOf: TestData.fixture("onnx/tensorproto-check.json")))
        XCTAssertGreaterThanOrEqual(record.packs.count, 4)
        let dir = try TestData.temporaryDirectory("foldkit-onnx-record")
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        for pack in record.packs {
            let weights = dir.appendingPathComponent(pack.name + ".weights").path
            let out = dir.appendingPathComponent(pack.name)
            // The record's paths are relative to the repository root; {weights} and {out} are temporary files.
            func arguments(_ recorded: [String]) -> [String] {
                recorded.map { argument in
                    if argument.hasPrefix("Fixtures/") { return TestData.repositoryRoot.appendingPathComponent(argument).path }
                    return argument.replacingOccurrences(of: "{weights}", with: weights).replacingOccurrences(of: "{out}", with: out.path)
                }
            }
            if let seed = pack.seedWeights {
                let seeded = try CommandRunner.run(arguments(seed))
                XCTAssertEqual(seeded.status, 0, seeded.stderr)
            }
            let made = try CommandRunner.run(arguments(pack.fixtures))
            XCTAssertEqual(made.status, 0, "\(pack.name): \(made.stderr)")
            let written = try FileManager.default.contentsOfDirectory(atPath: out.appendingPathComponent("test_data_set_0").path)
            XCTAssertEqual(written.map { "test_data_set_0/" + $0 }.sorted(), pack.tensors.map(\.file).sorted(), pack.name)
            for expected in pack.tensors {
                XCTAssertTrue(expected.equal, "\(pack.name) \(expected.file): onnx read an array other than \(expected.npy)'s")
                XCTAssertEqual(expected.dtype, "float32")
                let data = try Data(contentsOf: out.appendingPathComponent(expected.file))
                let decoded = try ONNXTensorFile.decode(data, file: expected.file)
                let place = "\(pack.name) \(expected.file)"
                XCTAssertEqual(decoded.shape, expected.dims, place)
                XCTAssertEqual(decoded.dataType, expected.dataType, place)
                XCTAssertEqual(decoded.name, expected.name, place)
                XCTAssertEqual(Checksum.sha256Hex(decoded.raw), expected.sha256, "\(place): raw_data differs from the array onnx decoded")
            }
        }
    }
}
