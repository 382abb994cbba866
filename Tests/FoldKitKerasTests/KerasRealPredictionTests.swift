import FoldKitTestSupport
import XCTest

@testable import FoldKit
@testable import FoldKitCore
@testable import FoldKitIO
@testable import FoldKitKeras

/// Keras' own predictions for the real models in ../shared/real-models/keras* (recorded by
/// Fixtures/keras-real/generate.py with tf_keras, cross-checked with Keras 3 where it loads them)
/// reproduced by the network KerasReader reads, run through the float64 executor, within
/// 1e-4 x max|reference| for every model output.
final class KerasRealPredictionTests: XCTestCase {
    /// One reference: the fixture folder and the files of ../shared it was computed from.
    private struct Case {
        let fixture: String
        let files: [String]
        var options = KerasReadOptions()
    }

    private static let xception = "real-models/keras_fer2013_mini_XCEPTION/"
    private static let hls1 = "real-models/keras_hls4ml_conv2d_1layer_tf213/"
    private static let hlsSeq = "real-models/keras_hls4ml_conv2d_model_sequential/"
    private static let jet = "real-models/keras_hls4ml_jetTagger_Conv2D_Small/"
    private static let b2c = "real-models/keras1_dl4j_batch_to_conv2d/"
    private static let mnist = "real-models/keras1_dl4j_mnist_cnn_th/"

    /// Relative 1e-4 of the largest reference magnitude, as for the generated Keras models.
    private let tolerance = 1e-4

    private func run(_ c: Case, file: StaticString = #filePath, line: UInt = #line) throws {
        let paths = try c.files.map { try TestData.sharedFile($0).path }
        let net = try KerasReader.read(paths: paths, options: c.options)
        let directory = "keras-real/\(c.fixture)"
        let input = try NPYFile.read(path: TestData.fixture("\(directory)/input.npy").path)
        XCTAssertEqual(
            input.values.count, net.inputShape.count, "\(c.fixture): input \(input.shape) vs network \(net.inputShape)", file: file, line: line)
        guard input.values.count == net.inputShape.count else { return }
        // Channels-last models take H x W x C (Keras' NHWC); channels-first ones (Keras 1 'th')
        // take C x H x W, which is FoldKit's own order.
        let values = input.values.map(Double.init)
        let chw = net.inputOrder == .channelsLast ? TensorLayout.hwcToCHW(values, shape: net.inputShape) : values
        let results = try Executor<Double>(network: net).run(input: chw, retention: .all)
        guard results.count == net.layers.count else {
            return XCTFail("\(c.fixture): executor returned \(results.count) outputs for \(net.layers.count) layers", file: file, line: line)
        }
        let fixtureFiles = try FileManager.default.contentsOfDirectory(atPath: TestData.fixture(directory).path)
        let referenceCount = fixtureFiles.filter { $0.hasPrefix("out") && $0.hasSuffix(".npy") }.count
        XCTAssertEqual(net.outputIndices.count, referenceCount, "\(c.fixture): model outputs", file: file, line: line)
        for (k, index) in net.outputIndices.enumerated() where k < referenceCount {
            let reference = try NPYFile.read(path: TestData.fixture("\(directory)/out\(k).npy").path)
            let shape = net.layers[index].outputShape
            // Keras feature maps (rank >= 4) are NHWC (trailing axes merged into channels);
            // vectors (rank 2) compare directly.
            let ours =
                reference.shape.count >= 4 && net.inputOrder == .channelsLast
                ? TensorLayout.chwToHWC(results[index], shape: shape) : results[index]
            compare(ours, reference, "\(c.fixture) output \(k) '\(net.layers[index].name)' \(shape)", file: file, line: line)
        }
    }

    private func compare(_ found: [Double], _ reference: (shape: [Int], values: [Float]), _ what: String, file: StaticString, line: UInt) {
        XCTAssertFalse(found.isEmpty, "\(what): no values", file: file, line: line)
        assertClose(found, reference.values, scaledTolerance: tolerance, "\(what) vs Keras \(reference.shape)", file: file, line: line)
    }

    func testMiniXception() throws {
        try run(Case(fixture: "fer2013_mini_XCEPTION", files: [Self.xception + "fer2013_mini_XCEPTION.102-0.66.hdf5"]))
        try run(Case(fixture: "gender_mini_XCEPTION", files: [Self.xception + "gender_mini_XCEPTION.21-0.95.hdf5"]))
    }

    func testAXeleRateMobileNetYOLOv2() throws {
        try run(Case(fixture: "aXeleRate_mobilenet_yolov2", files: ["real-models/keras_aXeleRate_mobilenet_yolov2/YOLO_best_mAP.h5"]))
    }

    func testHLS4MLConv2D1Layer() throws {
        try run(Case(fixture: "hls4ml_conv2d_1layer_tf213", files: [Self.hls1 + "conv2d_1layer.h5"]))
        try run(Case(fixture: "hls4ml_conv2d_1layer_tf213_json", files: [Self.hls1 + "conv2d_1layer.json", Self.hls1 + "conv2d_1layer_weights.h5"]))
    }

    func testHLS4MLConv2DModelSequential() throws {
        try run(Case(fixture: "hls4ml_conv2d_model_sequential", files: [Self.hlsSeq + "keras_conv2d_model.h5"]))
        try run(
            Case(
                fixture: "hls4ml_conv2d_model_sequential_json",
                files: [Self.hlsSeq + "KERAS_conv2d_model.json", Self.hlsSeq + "KERAS_conv2d_model_weights.h5"]))
    }

    func testHLS4MLJetTagger() throws {
        try run(Case(fixture: "hls4ml_jetTagger_Conv2D_Small", files: [Self.jet + "keras_jetTagger_Conv2D_small.h5"]))
        try run(
            Case(
                fixture: "hls4ml_jetTagger_Conv2D_Small_json",
                files: [Self.jet + "jetTagger_Conv2D_Small.json", Self.jet + "jetTagger_Conv2D_Small_weights.h5"]))
    }

    func testMTCNN12NetAt24x24() throws {
        try run(
            Case(
                fixture: "dl4j_mtcnn_12net", files: ["real-models/keras_dl4j_mtcnn_12net/12net.h5"],
                options: KerasReadOptions(inputHeight: 24, inputWidth: 24)))
        // The P-Net's own 12 x 12 window: one output position.
        try run(
            Case(
                fixture: "dl4j_mtcnn_12net_12x12", files: ["real-models/keras_dl4j_mtcnn_12net/12net.h5"],
                options: KerasReadOptions(inputHeight: 12, inputWidth: 12)))
    }

    /// DL4J's cnn_batch_norm: sample 0 of the input it ships; out0 from tf_keras, and the prediction it ships.
    func testDL4JCnnBatchNorm() throws {
        try run(Case(fixture: "dl4j_cnn_batch_norm", files: ["real-models/keras_dl4j_cnn_batch_norm/cnn_batch_norm.h5"]))
        let keras = try NPYFile.read(path: TestData.fixture("keras-real/dl4j_cnn_batch_norm/out0.npy").path)
        let shipped = try NPYFile.read(path: TestData.fixture("keras-real/dl4j_cnn_batch_norm/source_prediction.npy").path)
        XCTAssertEqual(shipped.shape, [1, 1])
        XCTAssertTrue(
            abs((keras.values.first ?? .nan) - (shipped.values.first ?? .nan)) <= Float(tolerance) * abs(shipped.values.first ?? 0),
            "tf_keras \(keras.values) vs shipped \(shipped.values)")
    }

    func testBatchToConv2DKeras2() throws {
        try run(Case(fixture: "keras2_batch_to_conv2d_tensorflow_2", files: [Self.b2c + "batch_to_conv2d_tensorflow_2.h5"]))
        // backend 'theano': the reference rotates the kernels as Keras 2.x's loader did.
        try run(Case(fixture: "keras2_batch_to_conv2d_theano_2", files: [Self.b2c + "batch_to_conv2d_theano_2.h5"]))
    }

    func testBatchToConv2DKeras1() throws {
        try run(Case(fixture: "keras1_batch_to_conv2d_tensorflow_1", files: [Self.b2c + "batch_to_conv2d_tensorflow_1.h5"]))
        try run(Case(fixture: "keras1_batch_to_conv2d_theano_1", files: [Self.b2c + "batch_to_conv2d_theano_1.h5"]))
    }

    /// Keras 1, Theano, dim_ordering 'th': the reference is TensorFlow's cross-correlation with
    /// the kernels rotated 180 degrees (Theano's true convolution, Keras' convert_kernel).
    func testMnistCnnTheano() throws {
        let files = [Self.mnist + "mnist_cnn_th_keras_1_config.json", Self.mnist + "mnist_cnn_th_keras_1_weights.h5"]
        try run(Case(fixture: "keras1_mnist_cnn_th", files: files))
        // The control (same model, kernels not rotated) must be far from the reference, or the
        // check above could not tell the two conventions apart.
        let reference = try NPYFile.read(path: TestData.fixture("keras-real/keras1_mnist_cnn_th/out0.npy").path)
        let control = try NPYFile.read(path: TestData.fixture("keras-real/keras1_mnist_cnn_th/control_unrotated.npy").path)
        let gap = Closeness.compare(control.values, reference.values, scaledTolerance: 100 * tolerance)
        XCTAssertTrue(control.values.allSatisfy { $0.isFinite }, "control predictions must be numbers")
        XCTAssertFalse(gap.passed, "rotated and unrotated predictions should differ clearly: \(gap)")
    }
}
