import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKitCore
@testable import FoldKitDarknet

/// The trained Darknet models in ../shared/real-models read with their weights, every byte accounted
/// for. Float counts are those listed in ../shared/real-models/VERIFY_darknet.txt (computed there
/// independently from the file sizes and a Python reading of the cfgs).
final class RealModelTests: XCTestCase {
    private let models: [(folder: String, cfg: String, weights: String, floats: Int, version: String, seen: UInt64)] = [
        ("yolo-fastest-1.0", "yolo-fastest.cfg", "yolo-fastest.weights", 356_406, "0.2.5", 8_000_000),
        ("yolo-fastest-1.1", "yolo-fastest-1.1.cfg", "yolo-fastest-1.1.weights", 346_062, "0.2.5", 14_231_680),
        ("yolo-fastest-1.1-xl", "yolo-fastest-1.1-xl.cfg", "yolo-fastest-1.1-xl.weights", 923_486, "0.2.5", 16_000_000),
        ("yolo-fastest-1.1_body", "yolo-fastest-1.1_body.cfg", "yolo-fastest-1.1_body.weights", 294_396, "0.2.5", 13_326_656),
        ("yoloface-50k", "yoloface-50k.cfg", "yoloface-50k.weights", 11_248, "0.2.5", 504_704),
        ("yoloface-500k-v2", "yoloface-500k-v2.cfg", "yoloface-500k-v2.weights", 104_624, "0.2.5", 7_871_728),
        ("MobileNetV2-YOLOv3-Nano-voc", "MobileNetV2-YOLOv3-Nano-voc.cfg", "MobileNetV2-YOLOv3-Nano-voc.weights", 769_750, "0.2.5", 1_648_384),
        ("DroNet_car", "DroNet_car.cfg", "DroNet_car.weights", 70_622, "0.2.0", 5_145_600),
        ("DroNetV3_car", "DroNetV3_car.cfg", "DroNetV3_car.weights", 194_662, "0.2.0", 2_744_000),
        ("cifar_small", "cifar_small.cfg", "cifar_small.weights", 59_690, "0.2.0", 640_000),
        ("mnist_lenet", "mnist_lenet.cfg", "mnist_lenet.weights", 47_776, "0.2.0", 3_600_128),
    ]

    // One test per model, so a missing model skips (or fails under CI) alone and the others still run.
    func testYoloFastest10() throws { try checkAllBytesAccountedFor("yolo-fastest-1.0") }
    func testYoloFastest11() throws { try checkAllBytesAccountedFor("yolo-fastest-1.1") }
    func testYoloFastest11XL() throws { try checkAllBytesAccountedFor("yolo-fastest-1.1-xl") }
    func testYoloFastest11Body() throws { try checkAllBytesAccountedFor("yolo-fastest-1.1_body") }
    func testYoloface50k() throws { try checkAllBytesAccountedFor("yoloface-50k") }
    func testYoloface500kV2() throws { try checkAllBytesAccountedFor("yoloface-500k-v2") }
    func testMobileNetV2YOLOv3NanoVOC() throws { try checkAllBytesAccountedFor("MobileNetV2-YOLOv3-Nano-voc") }
    func testDroNetCar() throws { try checkAllBytesAccountedFor("DroNet_car") }
    func testDroNetV3Car() throws { try checkAllBytesAccountedFor("DroNetV3_car") }
    func testCifarSmall() throws { try checkAllBytesAccountedFor("cifar_small") }
    func testMnistLenet() throws { try checkAllBytesAccountedFor("mnist_lenet") }

    func testEveryListedModelHasItsOwnTest() {
        XCTAssertEqual(models.count, 11, "add a test method for each model in the list")
    }

    /// The model reads with its weights, header and byte ranges tiling the file after the header.
    private func checkAllBytesAccountedFor(_ folder: String, file: StaticString = #filePath, line: UInt = #line) throws {
        guard let model = models.first(where: { $0.folder == folder }) else { return XCTFail("no model \(folder)", file: file, line: line) }
        let cfg = try TestData.sharedFile("real-models/\(model.folder)/\(model.cfg)").path
        let weights = try TestData.sharedFile("real-models/\(model.folder)/\(model.weights)").path
        let network = try DarknetReader.read(cfgPath: cfg, weightsPath: weights)
        let fileSize = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: weights)[.size] as? NSNumber).intValue
        XCTAssertEqual(network.parameterCount, model.floats, model.folder)
        XCTAssertEqual(fileSize, 20 + 4 * model.floats, model.folder)
        XCTAssertEqual(network.metadata.weightsVersion, model.version, model.folder)
        XCTAssertEqual(network.metadata.seen, model.seen, model.folder)
        XCTAssertEqual(network.metadata.headerBytes, 20, model.folder)
        XCTAssertEqual(network.sourceFiles, [cfg, weights])

        // The layers' byte ranges tile the file after the header, in order, with no gap.
        var next = 20
        for layer in network.layers {
            guard let range = layer.source.weightsByteRange else { continue }
            XCTAssertEqual(range.lowerBound, next, "\(model.folder) \(layer.label)")
            let floats = layer.kind.parameters.reduce(0) { $0 + $1.tensor.count }
            XCTAssertEqual(range.count, 4 * floats, "\(model.folder) \(layer.label)")
            for (_, tensor) in layer.kind.parameters {
                let span = try XCTUnwrap(tensor.fileSpan, "\(model.folder) \(layer.label): tensors must stay in the file")
                XCTAssertTrue(range.contains(span.byteOffset), "\(model.folder) \(layer.label)")
            }
            next = range.upperBound
        }
        XCTAssertEqual(next, fileSize, model.folder)
    }

    func testMnistLenetLayersAndFirstWeights() throws {
        let cfg = try TestData.sharedFile("real-models/mnist_lenet/mnist_lenet.cfg").path
        let weights = try TestData.sharedFile("real-models/mnist_lenet/mnist_lenet.weights").path
        let network = try DarknetReader.read(cfgPath: cfg, weightsPath: weights)
        // conv 6 5x5 pad=1 (padding 5/2 = 2) on 28: 28; maxpool 2/2 (padding 1): (28+1-2)/2+1 = 14;
        // conv 6: 14; maxpool: 7; connected 120 (6*7*7 = 294 inputs), 84, 10. Floats:
        // 456 + 906 + (120 + 120*294) + (84 + 84*120) + (10 + 10*84) = 47776, as VERIFY_darknet.txt.
        XCTAssertEqual(
            network.layers.map(\.outputShape.description),
            ["6x28x28", "6x14x14", "6x14x14", "6x7x7", "120x1x1", "120x1x1", "84x1x1", "84x1x1", "10x1x1", "10x1x1", "10x1x1"])
        guard case .fullyConnected(let fc) = network.layers[4].kind else { return XCTFail("layer 4 is not connected") }
        XCTAssertEqual(fc.inputCount, 294)
        XCTAssertEqual(fc.weights.shape, [120, 294])
        guard case .convolution(let conv) = network.layers[0].kind else { return XCTFail("layer 0 is not a convolution") }
        XCTAssertNil(conv.batchNorm)
        XCTAssertEqual(conv.activation, .relu)
        // The first conv's biases are the 6 floats right after the 20-byte header; its weights follow.
        let handle = try XCTUnwrap(FileHandle(forReadingAtPath: weights))
        defer { try? handle.close() }
        try handle.seek(toOffset: 20)
        let raw = try XCTUnwrap(try handle.read(upToCount: 4 * (6 + 6 * 3 * 25)))
        let direct = FloatFileReader.decodeLittleEndianFloats(raw)
        XCTAssertEqual(try conv.bias?.floats(), Array(direct[0..<6]))
        XCTAssertEqual(try conv.weights.floats(), Array(direct[6...]))
        XCTAssertEqual(conv.weights.shape, [6, 3, 5, 5])
    }

    func testBatchNormConvolutionTensorOrder() throws {
        // yoloface-50k layer 0: [convolutional] batch_normalize=1, filters=8, size=3, 3 input channels.
        let cfg = try TestData.sharedFile("real-models/yoloface-50k/yoloface-50k.cfg").path
        let weights = try TestData.sharedFile("real-models/yoloface-50k/yoloface-50k.weights").path
        let network = try DarknetReader.read(cfgPath: cfg, weightsPath: weights)
        guard case .convolution(let conv) = network.layers[0].kind, let bn = conv.batchNorm else {
            return XCTFail("layer 0 should be a convolution with batch norm")
        }
        let n = conv.outputChannels
        XCTAssertNil(conv.bias)
        XCTAssertEqual(bn.beta?.fileSpan?.byteOffset, 20)
        XCTAssertEqual(bn.gamma?.fileSpan?.byteOffset, 20 + 4 * n)
        XCTAssertEqual(bn.mean.fileSpan?.byteOffset, 20 + 8 * n)
        XCTAssertEqual(bn.variance.fileSpan?.byteOffset, 20 + 12 * n)
        XCTAssertEqual(conv.weights.fileSpan?.byteOffset, 20 + 16 * n)
        XCTAssertEqual(bn.convention, .darknet)
        XCTAssertEqual(network.epsilonConvention, .darknet)
        // Rolling variances are non-negative in a trained file.
        XCTAssertTrue(try bn.variance.floats().allSatisfy { $0 >= 0 })
    }

    func testEpsilonOptionReachesEveryBatchNorm() throws {
        let cfg = try TestData.sharedFile("real-models/yolo-fastest-1.1/yolo-fastest-1.1.cfg").path
        let weights = try TestData.sharedFile("real-models/yolo-fastest-1.1/yolo-fastest-1.1.weights").path
        let convention = EpsilonConvention(epsilon: 1e-6, placement: .outsideSqrt)
        let network = try DarknetReader.read(cfgPath: cfg, weightsPath: weights, options: DarknetReadOptions(epsilon: convention))
        XCTAssertEqual(network.epsilonConvention, convention)
        var count = 0
        for layer in network.layers {
            if case .convolution(let c) = layer.kind, let bn = c.batchNorm {
                XCTAssertEqual(bn.convention, convention)
                count += 1
            }
        }
        XCTAssertGreaterThan(count, 50)
    }
}
