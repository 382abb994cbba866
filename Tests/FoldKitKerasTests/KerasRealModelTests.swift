import FoldKitTestSupport
import XCTest

@testable import FoldKit
@testable import FoldKitCore
@testable import FoldKitKeras

/// Every real Keras file under ../shared/real-models/keras* reads (or is refused with a clear
/// message). Expected structure comes from the files' own configs (see VERIFY_keras.txt), as
/// `ModelLoader` gives it: read, then batch norms attached by `BatchNormAttachment`.
final class KerasRealModelTests: XCTestCase {
    private func read(_ relative: [String], options: KerasReadOptions = .init()) throws -> Network {
        BatchNormAttachment.apply(to: try readOnly(relative, options: options))
    }

    /// The network exactly as `KerasReader` builds it.
    private func readOnly(_ relative: [String], options: KerasReadOptions = .init()) throws -> Network {
        try KerasReader.read(paths: try sharedPaths(relative), options: options)
    }

    /// The shared files' paths, found before any assertion closure (so a missing file skips, or fails
    /// under CI, instead of counting as the expected error).
    private func sharedPaths(_ relative: [String]) throws -> [String] {
        try relative.map { try TestData.sharedFile("real-models/\($0)").path }
    }

    private func count(_ net: Network, _ predicate: (LayerKind) -> Bool) -> Int {
        net.layers.filter { predicate($0.kind) }.count
    }

    private func isConv(_ kind: LayerKind) -> Bool { if case .convolution = kind { return true }; return false }
    private func isFoldedConv(_ kind: LayerKind) -> Bool { if case .convolution(let c) = kind { return c.batchNorm != nil }; return false }
    private func isBatchNorm(_ kind: LayerKind) -> Bool { if case .batchNorm = kind { return true }; return false }

    func testDL4JCnnBatchNorm() throws {
        let net = try read(["keras_dl4j_cnn_batch_norm/cnn_batch_norm.h5"])
        XCTAssertEqual(net.inputShape, ActivationShape(channels: 3, height: 10, width: 10))
        XCTAssertEqual(net.inputOrder, .channelsLast)
        XCTAssertEqual(net.layers.map { $0.name }, ["conv2d_1", "activation_1", "conv2d_2", "flatten_1", "dense_1"])
        XCTAssertEqual(net.layers[0].source.section, "Conv2D+BatchNormalization")
        XCTAssertEqual(net.outputIndices.map { net.layers[$0].outputShape }, [.vector(1)])
        XCTAssertEqual(net.metadata.kerasVersion, "2.1.3")
        if case .convolution(let c) = net.layers[0].kind {
            XCTAssertEqual(c.batchNorm?.convention, EpsilonConvention(epsilon: 1e-3, placement: .insideSqrt))
        } else {
            XCTFail("first layer should be a convolution")
        }
    }

    func testMiniXceptionBothFiles() throws {
        for file in ["fer2013_mini_XCEPTION.102-0.66.hdf5", "gender_mini_XCEPTION.21-0.95.hdf5"] {
            let net = try read(["keras_fer2013_mini_XCEPTION/\(file)"])
            XCTAssertEqual(net.inputShape, ActivationShape(channels: 1, height: 64, width: 64))
            // 7 Conv2D + 8 SeparableConv2D (each depthwise + pointwise); 14 BNs, all directly after a conv.
            XCTAssertEqual(count(net, isConv), 7 + 16, file)
            XCTAssertEqual(count(net, isFoldedConv), 14, file)
            XCTAssertEqual(count(net, isBatchNorm), 0, file)
            let classes = file.hasPrefix("fer") ? 7 : 2
            XCTAssertEqual(net.layers[net.outputIndices[0]].outputShape, .vector(classes))
        }
    }

    func testAXeleRateMobileNetYOLOv2() throws {
        let net = try read(["keras_aXeleRate_mobilenet_yolov2/YOLO_best_mAP.h5"])
        XCTAssertEqual(net.inputShape, ActivationShape(channels: 3, height: 224, width: 224))
        // 15 Conv2D + 13 DepthwiseConv2D; 27 BNs each right after a conv (the final conv has none).
        XCTAssertEqual(count(net, isConv), 28)
        XCTAssertEqual(count(net, isFoldedConv), 27)
        // Reshape (7, 7, 5, 6): the trailing axes merge into 30 channels.
        XCTAssertEqual(net.layers[net.outputIndices[0]].outputShape, ActivationShape(channels: 30, height: 7, width: 7))
        XCTAssertEqual(net.parameterCount, 226_254)
    }

    func testMTCNNNeedsAnInputSizeAndHasTwoOutputs() throws {
        let paths = try sharedPaths(["keras_dl4j_mtcnn_12net/12net.h5"])
        XCTAssertThrowsError(try KerasReader.read(paths: paths)) { error in
            XCTAssertEqual((error as? FoldKitError)?.kind, .usage, "\(error)")
        }
        let net = try read(["keras_dl4j_mtcnn_12net/12net.h5"], options: KerasReadOptions(inputHeight: 12, inputWidth: 12))
        XCTAssertEqual(net.outputs.count, 2)
        XCTAssertEqual(
            net.outputIndices.map { net.layers[$0].outputShape },
            [ActivationShape(channels: 2, height: 1, width: 1), ActivationShape(channels: 4, height: 1, width: 1)])
        XCTAssertEqual(net.parameterCount, 6632)
    }

    func testKerasOneAndTwoBatchToConv2D() throws {
        for (file, flipped) in [("tensorflow_1", false), ("theano_1", false), ("tensorflow_2", false), ("theano_2", true)] {
            let net = try read(["keras1_dl4j_batch_to_conv2d/batch_to_conv2d_\(file).h5"])
            XCTAssertEqual(net.inputShape, .vector(100), file)
            XCTAssertEqual(net.layers.map { $0.kind.typeName }, ["connected", "reshape", "batchnorm", "conv"], file)
            XCTAssertEqual(net.layers[1].outputShape, ActivationShape(channels: 10, height: 7, width: 7), file)
            XCTAssertEqual(net.layers[3].outputShape, ActivationShape(channels: 5, height: 5, width: 5), file)
            XCTAssertEqual(net.metadata.theanoKernelsRotated, flipped, file)
            XCTAssertEqual(net.parameterCount, 49985, file)
        }
    }

    func testKerasOneTheanoMnistJSONPlusWeights() throws {
        let net = try read(["keras1_dl4j_mnist_cnn_th/mnist_cnn_th_keras_1_config.json", "keras1_dl4j_mnist_cnn_th/mnist_cnn_th_keras_1_weights.h5"])
        XCTAssertEqual(net.inputOrder, .channelsFirst)
        XCTAssertEqual(net.inputShape, ActivationShape(channels: 1, height: 28, width: 28))
        XCTAssertEqual(net.metadata.dataFormat, "channels_first")
        XCTAssertTrue(net.metadata.theanoKernelsRotated)
        XCTAssertEqual(net.layers[net.outputIndices[0]].outputShape, .vector(10))
        XCTAssertEqual(net.parameterCount, 600_810)
        // Flatten of a 32x12x12 channels-first map keeps Theano's C, H, W order.
        if let flatten = net.layers.first(where: { $0.name == "flatten_1" }), case .reshape(let r) = flatten.kind {
            XCTAssertEqual(r.order, .channelsFirst)
        } else {
            XCTFail("flatten_1 missing")
        }
    }

    func testFullModelAndJSONPlusWeightsGiveTheSameWeights() throws {
        let pairs: [([String], [String])] = [
            (
                ["keras_hls4ml_conv2d_1layer_tf213/conv2d_1layer.h5"],
                ["keras_hls4ml_conv2d_1layer_tf213/conv2d_1layer.json", "keras_hls4ml_conv2d_1layer_tf213/conv2d_1layer_weights.h5"]
            ),
            (
                ["keras_hls4ml_conv2d_model_sequential/keras_conv2d_model.h5"],
                [
                    "keras_hls4ml_conv2d_model_sequential/KERAS_conv2d_model.json",
                    "keras_hls4ml_conv2d_model_sequential/KERAS_conv2d_model_weights.h5",
                ]
            ),
            (
                ["keras_hls4ml_jetTagger_Conv2D_Small/keras_jetTagger_Conv2D_small.h5"],
                [
                    "keras_hls4ml_jetTagger_Conv2D_Small/jetTagger_Conv2D_Small.json",
                    "keras_hls4ml_jetTagger_Conv2D_Small/jetTagger_Conv2D_Small_weights.h5",
                ]
            ),
        ]
        for (full, split) in pairs {
            let a = try read(full)
            let b = try read(split.reversed())  // either order
            XCTAssertEqual(a.layers.map { $0.name }, b.layers.map { $0.name }, full[0])
            XCTAssertEqual(a.inputShape, b.inputShape)
            for (la, lb) in zip(a.layers, b.layers) {
                let pa = try la.kind.parameters.map { try $0.tensor.floats() }
                let pb = try lb.kind.parameters.map { try $0.tensor.floats() }
                XCTAssertEqual(pa, pb, "\(full[0]) \(la.name)")
            }
        }
    }

    func testJetTaggerStandaloneBatchNormStaysSeparate() throws {
        // batch_normalization_1 reads the input (no conv before it): it cannot be folded into a producer.
        let net = try read(["keras_hls4ml_jetTagger_Conv2D_Small/keras_jetTagger_Conv2D_small.h5"])
        XCTAssertEqual(net.layers.first?.kind.typeName, "batchnorm")
        XCTAssertEqual(net.parameterCount, 891)
    }

    func testQKerasArchiveIsRefusedNamingLayerAndClass() throws {
        let paths = try sharedPaths(["keras3_hls4ml_qkeras_v3_3layer/qkeras-v3_3layer.keras"])
        XCTAssertThrowsError(try KerasReader.read(paths: paths)) { error in
            guard let e = error as? FoldKitError else { return XCTFail("\(error)") }
            XCTAssertEqual(e.kind, .unsupported)
            XCTAssertEqual(e.layer, "fc1 (QDense)")
            XCTAssertTrue(e.description.contains("qkeras"), e.description)
        }
    }

    func testWeightsOnlyFileAloneAsksForTheJSON() throws {
        let paths = try sharedPaths(["keras1_dl4j_mnist_cnn_th/mnist_cnn_th_keras_1_weights.h5"])
        XCTAssertThrowsError(try KerasReader.read(paths: paths)) { error in
            XCTAssertEqual((error as? FoldKitError)?.kind, .usage)
            XCTAssertTrue("\(error)".contains("JSON"), "\(error)")
        }
    }
}
