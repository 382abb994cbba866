import FoldKitTestSupport
import XCTest

@testable import FoldKit
@testable import FoldKitCore
@testable import FoldKitIO
@testable import FoldKitKeras

/// Keras' own predictions (recorded by Fixtures/keras/generate.py with tf.keras and Keras 3, and
/// keras_dl4j_cnn_batch_norm's predictions.npy made by real Keras 2.1.3) reproduced by running the
/// network read by KerasReader through the float64 executor, within 1e-4 x max|reference|.
final class KerasPredictionTests: XCTestCase {
    private func toCHW(_ values: [Float], shape: ActivationShape) -> [Double] { KerasFixturePrediction.toCHW(values, shape: shape) }

    private func assertClose(_ found: [Double], _ reference: [Float], _ what: String, file: StaticString = #filePath, line: UInt = #line) {
        KerasFixturePrediction.assertClose(found, reference, what, file: file, line: line)
    }

    private func check(model: String, saver: String, paths: [String]) throws {
        try KerasFixturePrediction.check(model: model, saver: saver, paths: paths)
    }

    private let models = ["tiny_yolo_voc", "dag", "dense_head", "grouped"]

    func testTFKerasH5() throws {
        for model in models { try check(model: model, saver: "tfkeras", paths: ["\(model).tfkeras.h5"]) }
    }

    func testKeras3LegacyH5() throws {
        for model in models { try check(model: model, saver: "keras3", paths: ["\(model).keras3.h5"]) }
    }

    func testKeras3Archive() throws {
        for model in models { try check(model: model, saver: "keras3", paths: ["\(model).keras"]) }
    }

    func testTFKerasJSONPlusWeights() throws {
        for model in ["dag", "dense_head"] {
            try check(model: model, saver: "tfkeras", paths: ["\(model).tfkeras.json", "\(model).tfkeras.weights.h5"])
            try check(model: model, saver: "tfkeras", paths: ["\(model).tfkeras.json", "\(model).tfkeras_legacy_weights.h5"])
        }
    }

    func testTinyYOLOStructure() throws {
        let read = try KerasReader.read(paths: [TestData.fixture("keras/tiny_yolo_voc.keras").path])
        // The reader keeps every BatchNormalization its own layer; BatchNormAttachment (run by ModelLoader) attaches them.
        XCTAssertEqual(
            read.layers.filter {
                if case .batchNorm = $0.kind { return true }; return false
            }.count, 9)
        let net = BatchNormAttachment.apply(to: read)
        XCTAssertEqual(net.layers.count, read.layers.count - 9)
        // 10 conv + BN + leaky blocks: every BN folds into its bias-free conv, the leaky stays separate.
        XCTAssertEqual(
            net.layers.filter {
                if case .convolution(let c) = $0.kind { return c.batchNorm != nil && c.bias == nil }; return false
            }.count, 9)
        XCTAssertEqual(net.layers.filter { $0.kind.typeName == "spaceToDepth" }.map { $0.name }, ["space_to_depth_x2"])
        XCTAssertEqual(net.layers[net.outputIndices[0]].outputShape, ActivationShape(channels: 125, height: 2, width: 2))
    }

    func testDL4JCnnBatchNormPredictions() throws {
        let net = try KerasReader.read(paths: [try TestData.sharedFile("real-models/keras_dl4j_cnn_batch_norm/cnn_batch_norm.h5").path])
        let input = try NPYFile.read(path: try TestData.sharedFile("real-models/keras_dl4j_cnn_batch_norm/input.npy").path)
        let predictions = try NPYFile.read(path: try TestData.sharedFile("real-models/keras_dl4j_cnn_batch_norm/predictions.npy").path)
        XCTAssertEqual(input.shape, [5, 10, 10, 3])
        XCTAssertEqual(predictions.shape, [5, 1])
        let executor = try Executor<Double>(network: net)
        let per = net.inputShape.count
        var found: [Double] = []
        for sample in 0..<5 {
            let chw = toCHW(Array(input.values[(sample * per)..<((sample + 1) * per)]), shape: net.inputShape)
            let results = try executor.run(input: chw, retention: .all)
            guard results.count == net.layers.count else {
                return XCTFail("executor returned \(results.count) layer outputs for \(net.layers.count) layers")
            }
            found += results[net.outputIndices[0]]
        }
        assertClose(found, predictions.values, "cnn_batch_norm predictions")
    }
}
