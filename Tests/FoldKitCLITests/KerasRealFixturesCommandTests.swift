import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit
@testable import FoldKitIO

/// `foldkit fixtures` on every real Keras model with a reference in Fixtures/keras-real: given the
/// input in the shape Keras takes (`input.npy`, batch first), the written output layer tensors
/// (`--layout nhwc`) reproduce Keras' own predictions (`out<k>.npy`, recorded by
/// Fixtures/keras-real/generate.py) within 1e-4 x max|Keras output|.
final class KerasRealFixturesCommandTests: XCTestCase {
    /// What generate.py recorded for one model (meta.json).
    private struct Meta: Decodable {
        struct Output: Decodable { var file: String; var name: String; var shape: [Int] }
        var files: [String]
        var outputs: [Output]
    }

    private struct Manifest: Decodable {
        struct Tensor: Decodable {
            var file: String
            var name: String
            var shape: [Int]
        }
        var tensors: [Tensor]
    }

    /// Relative 1e-4 of the largest reference magnitude, as in KerasRealPredictionTests.
    private let tolerance: Float = 1e-4

    private static let folder = TestData.fixture("keras-real")

    private static func modelFolders() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { name in
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: folder.appendingPathComponent(name).path, isDirectory: &isDirectory)
                && isDirectory.boolValue
        }.sorted()
    }

    /// Runs `foldkit fixtures` on `model` with `input` and returns the output folder and its manifest.
    private func fixtures(files: [String], input: String, extra: [String] = []) throws -> (URL, Manifest, CommandRunner.Result) {
        let out = try TestData.temporaryDirectory("foldkit-keras-real").appendingPathComponent("fixtures")
        addTeardownBlock { try? FileManager.default.removeItem(at: out.deletingLastPathComponent()) }
        let result = try CommandRunner.run(["fixtures"] + files + ["--input", input, "--out", out.path, "--layout", "nhwc"] + extra)
        guard result.status == 0 else { return (out, Manifest(tensors: []), result) }
        let manifest = try JSONDecoder().decode(Manifest.self, from: Data(contentsOf: out.appendingPathComponent("manifest.json")))
        return (out, manifest, result)
    }

    /// Elements where `!(|found - reference| <= tolerance x max|reference|)` (so NaN fails), and the worst.
    private func mismatches(_ found: [Float], _ reference: [Float]) -> (count: Int, worst: String) {
        let limit = tolerance * (reference.map { abs($0) }.max() ?? 0)
        var count = 0
        var worst = ""
        var worstDeviation: Float = -1
        for i in reference.indices where !(abs(found[i] - reference[i]) <= limit) {
            count += 1
            let d = abs(found[i] - reference[i])
            if d.isNaN || d > worstDeviation {
                worstDeviation = d.isNaN ? .infinity : d
                worst = "at \(i): foldkit \(found[i]), keras \(reference[i]), allowed \(limit)"
            }
        }
        return (count, worst)
    }

    func testEveryKerasRealModelReproducesKerasThroughTheCommand() throws {
        let models = try Self.modelFolders()
        XCTAssertGreaterThanOrEqual(models.count, 17, "Fixtures/keras-real model folders: \(models)")
        for model in models {
            let reference = Self.folder.appendingPathComponent(model)
            let meta = try JSONDecoder().decode(Meta.self, from: Data(contentsOf: reference.appendingPathComponent("meta.json")))
            let files = try meta.files.map { try TestData.sharedFile($0).path }
            let (out, manifest, result) = try fixtures(files: files, input: reference.appendingPathComponent("input.npy").path)
            XCTAssertEqual(result.status, 0, "\(model): \(result.stderr)")
            guard result.status == 0 else { continue }
            XCTAssertFalse(meta.outputs.isEmpty, model)
            for output in meta.outputs {
                // The last tensor of the Keras layer: a fused activation is written after its layer.
                guard let tensor = manifest.tensors.last(where: { $0.name == output.name }) else {
                    XCTFail("\(model): no tensor for Keras output '\(output.name)' in \(manifest.tensors.map(\.name))")
                    continue
                }
                let ours = try NPYFile.read(path: out.appendingPathComponent(tensor.file).path)
                let keras = try NPYFile.read(path: reference.appendingPathComponent(output.file).path)
                XCTAssertEqual(keras.shape, output.shape, "\(model) \(output.file) vs meta.json")
                // Feature maps are NHWC in both (aXeleRate's (1, 7, 7, 5, 6) is (1, 7, 7, 30) merged); vectors (1, N).
                if keras.shape.count <= 4 {
                    XCTAssertEqual(ours.shape, keras.shape, "\(model) output '\(output.name)' shape")
                } else {
                    XCTAssertEqual(ours.shape.reduce(1, *), keras.shape.reduce(1, *), "\(model) output '\(output.name)' element count")
                    XCTAssertEqual(Array(ours.shape.prefix(3)), Array(keras.shape.prefix(3)), "\(model) output '\(output.name)' N, H, W")
                }
                guard ours.values.count == keras.values.count else { continue }
                let bad = mismatches(ours.values, keras.values)
                XCTAssertEqual(
                    bad.count, 0,
                    "\(model) output '\(output.name)': \(bad.count) of \(keras.values.count) beyond 1e-4 x max|Keras|, worst \(bad.worst)")
            }
        }
    }

    /// MTCNN's P-Net declares its input (None, None, 3): a (1, 12, 12, 3) array runs it at its own
    /// 12 x 12 window with no size flag, one window out: (1, 1, 1, 2) and (1, 1, 1, 4).
    func testMTCNN12NetTakesItsSizeFromTheArray() throws {
        let model = try TestData.sharedFile("real-models/keras_dl4j_mtcnn_12net/12net.h5").path
        let input = TestData.fixture("keras-real/dl4j_mtcnn_12net_12x12/input.npy").path
        let (_, manifest, result) = try fixtures(files: [model], input: input)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(manifest.tensors.first?.shape, [1, 12, 12, 3])
        XCTAssertEqual(manifest.tensors.last(where: { $0.name == "conv4-1" })?.shape, [1, 1, 1, 2])
        XCTAssertEqual(manifest.tensors.last(where: { $0.name == "conv4-2" })?.shape, [1, 1, 1, 4])
    }

    /// DL4J's cnn_batch_norm ships Keras' predictions for its own five inputs (float64): each
    /// sample, cast to float32 and given as (1, 10, 10, 3), reproduces the shipped prediction.
    func testCnnBatchNormReproducesTheSourcesOwnPredictions() throws {
        let model = try TestData.sharedFile("real-models/keras_dl4j_cnn_batch_norm/cnn_batch_norm.h5").path
        let inputs = try NPYFile.read(path: TestData.sharedFile("real-models/keras_dl4j_cnn_batch_norm/input.npy").path)
        let predictions = try NPYFile.read(path: TestData.sharedFile("real-models/keras_dl4j_cnn_batch_norm/predictions.npy").path)
        XCTAssertEqual(inputs.shape, [5, 10, 10, 3])
        XCTAssertEqual(predictions.shape, [5, 1])
        guard inputs.shape == [5, 10, 10, 3], predictions.shape == [5, 1] else { return }
        let folder = try TestData.temporaryDirectory("foldkit-cnn-batch-norm")
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let scale = predictions.values.map { abs($0) }.max() ?? 0
        for sample in 0..<5 {
            let path = folder.appendingPathComponent("sample\(sample).npy")
            try NPYFile.encode(values: Array(inputs.values[(sample * 300)..<((sample + 1) * 300)]), shape: [1, 10, 10, 3]).write(to: path)
            let (out, manifest, result) = try fixtures(files: [model], input: path.path)
            XCTAssertEqual(result.status, 0, result.stderr)
            guard let tensor = manifest.tensors.last(where: { $0.name == "dense_1" }) else { XCTFail("no dense_1 tensor"); continue }
            let ours = try NPYFile.read(path: out.appendingPathComponent(tensor.file).path)
            XCTAssertEqual(ours.shape, [1, 1])
            let found = ours.values.first ?? .nan
            XCTAssertTrue(
                abs(found - predictions.values[sample]) <= tolerance * scale,
                "sample \(sample): foldkit \(found), shipped prediction \(predictions.values[sample])")
        }
    }
}
