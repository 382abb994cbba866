import FoldKitDarknet
import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit
@testable import FoldKitIO

/// FoldKit's Darknet reader + float64 executor against OpenCV 4.x DNN, layer by layer.
///
/// The references in `Fixtures/opencv/<model>/` were computed by OpenCV (`cv2.dnn.readNetFromDarknet`,
/// fusion off) with `Fixtures/opencv/generate.py`; see `Fixtures/opencv/README.md`. OpenCV normalises
/// batch norm with (x - mean) / sqrt(var + 1e-6), so the model is read with that convention here.
///
/// For every layer listed in `meta.json`: max|ours - opencv| <= tolerance * max|opencv|, with
/// tolerance 1e-4 for real trained weights and 1e-3 for seeded weights (deep random networks
/// accumulate float32 rounding on OpenCV's side).
final class OpenCVReferenceTests: XCTestCase {
    static let realWeightsTolerance = 1e-4
    static let seededWeightsTolerance = 1e-3

    // Real trained models from ../shared/real-models.
    func testYoloFastest10() throws { try checkAgainstOpenCV("yolo-fastest-1.0") }
    func testYoloFastest11() throws { try checkAgainstOpenCV("yolo-fastest-1.1") }
    func testYoloFastest11XL() throws { try checkAgainstOpenCV("yolo-fastest-1.1-xl") }
    func testYoloFastest11Body() throws { try checkAgainstOpenCV("yolo-fastest-1.1_body") }
    func testYoloFace50k() throws { try checkAgainstOpenCV("yoloface-50k") }
    func testYoloFace500kV2() throws { try checkAgainstOpenCV("yoloface-500k-v2") }
    func testMobileNetV2YOLOv3NanoVOC() throws { try checkAgainstOpenCV("MobileNetV2-YOLOv3-Nano-voc") }
    func testDroNetCar() throws { try checkAgainstOpenCV("DroNet_car") }
    func testDroNetV3Car() throws { try checkAgainstOpenCV("DroNetV3_car") }
    func testCifarSmall() throws { try checkAgainstOpenCV("cifar_small") }
    func testMnistLenet() throws { try checkAgainstOpenCV("mnist_lenet") }

    // Cfgs from ../shared/darknet-cfg with seeded weights (not yolov3-tiny_xnor: binary convolutions
    // are refused; not efficientnet-lite3: OpenCV has no relu6).
    func testDarknet19() throws { try checkAgainstOpenCV("darknet19") }
    func testTiny() throws { try checkAgainstOpenCV("tiny") }
    func testEnetCoco() throws { try checkAgainstOpenCV("enet-coco") }
    func testTinyYoloVOC() throws { try checkAgainstOpenCV("tiny-yolo-voc") }
    func testYolov2TinyVOC() throws { try checkAgainstOpenCV("yolov2-tiny-voc") }
    func testYolov2Tiny() throws { try checkAgainstOpenCV("yolov2-tiny") }
    func testYoloVOC20() throws { try checkAgainstOpenCV("yolo-voc.2.0") }
    func testYolov2VOC() throws { try checkAgainstOpenCV("yolov2-voc") }
    func testYolov2() throws { try checkAgainstOpenCV("yolov2") }
    func testYolov3TinyPRN() throws { try checkAgainstOpenCV("yolov3-tiny-prn") }
    func testYolov3Tiny() throws { try checkAgainstOpenCV("yolov3-tiny") }
    func testYolov3Tiny3l() throws { try checkAgainstOpenCV("yolov3-tiny_3l") }
    func testYolov3() throws { try checkAgainstOpenCV("yolov3") }
    func testYolov4Tiny3l() throws { try checkAgainstOpenCV("yolov4-tiny-3l") }
    func testYolov4TinyCustom() throws { try checkAgainstOpenCV("yolov4-tiny-custom") }
    func testYolov4Tiny() throws { try checkAgainstOpenCV("yolov4-tiny") }
    func testYolov4() throws { try checkAgainstOpenCV("yolov4") }
    func testYolov7Tiny() throws { try checkAgainstOpenCV("yolov7-tiny") }

    /// The project's own small cfgs (`Fixtures/darknet/cfg/`), referenced as `fixture-<name>`: every cfg
    /// OpenCV can read has its reference (generate.py's rule: all but the `darknet-only` ones), so a
    /// missing or deleted reference folder fails, naming the cfg.
    func testProjectFixtureCfgs() throws {
        let names = try referenceFolders().filter { $0.hasPrefix("fixture-") }
        let cfgs = try FileManager.default.contentsOfDirectory(atPath: TestData.fixture("darknet/cfg").path)
            .filter { $0.hasSuffix(".cfg") && !$0.contains("darknet-only") }.sorted()
        XCTAssertFalse(cfgs.isEmpty, "no cfgs in Fixtures/darknet/cfg")
        for cfg in cfgs where !names.contains("fixture-" + cfg.dropLast(4)) {
            XCTFail(
                "Fixtures/darknet/cfg/\(cfg) has no OpenCV reference Fixtures/opencv/fixture-\(cfg.dropLast(4))/meta.json; "
                    + "run python3 Fixtures/opencv/generate.py fixture-\(cfg.dropLast(4))")
        }
        for name in names {
            try checkAgainstOpenCV(name)
        }
    }

    /// Every reference folder is checked by some test above (a new folder cannot be silently ignored).
    func testEveryReferenceFolderHasATest() throws {
        let covered: Set<String> = [
            "yolo-fastest-1.0", "yolo-fastest-1.1", "yolo-fastest-1.1-xl", "yolo-fastest-1.1_body", "yoloface-50k",
            "yoloface-500k-v2", "MobileNetV2-YOLOv3-Nano-voc", "DroNet_car", "DroNetV3_car", "cifar_small", "mnist_lenet",
            "darknet19", "tiny", "enet-coco", "tiny-yolo-voc", "yolov2-tiny-voc", "yolov2-tiny", "yolo-voc.2.0",
            "yolov2-voc", "yolov2", "yolov3-tiny-prn", "yolov3-tiny", "yolov3-tiny_3l", "yolov3", "yolov4-tiny-3l",
            "yolov4-tiny-custom", "yolov4-tiny", "yolov4", "yolov7-tiny",
        ]
        let uncovered = try referenceFolders().filter { !covered.contains($0) && !$0.hasPrefix("fixture-") }
        XCTAssertEqual(uncovered, [], "Fixtures/opencv folders without a test in OpenCVReferenceTests")
    }

    // MARK: - The comparison

    private func checkAgainstOpenCV(_ model: String) throws {
        let folder = TestData.fixture("opencv/\(model)")
        let metaURL = folder.appendingPathComponent("meta.json")
        guard FileManager.default.fileExists(atPath: metaURL.path) else {
            XCTFail("\(model): no reference at \(metaURL.path); run Fixtures/opencv/generate.py \(model)")
            return
        }
        let meta = try JSONDecoder().decode(OpenCVReferenceMeta.self, from: Data(contentsOf: metaURL))
        XCTAssertEqual(meta.model, model)
        XCTAssertEqual(meta.bnEpsilonMode, "inside", "\(model): OpenCV adds the epsilon inside the square root")

        // The cfg the reference was made from.
        let cfg: URL
        switch meta.cfgRoot {
        case "shared": cfg = try TestData.sharedFile(meta.cfg)
        case "fixtures": cfg = TestData.fixture(meta.cfg)
        default:
            XCTFail("\(model): unknown cfgRoot \(meta.cfgRoot)")
            return
        }
        XCTAssertEqual(try Checksum.sha256Hex(fileAt: cfg.path), meta.cfgSha256, "\(model): \(cfg.path) is not the cfg the reference was made from")

        // The weights: the shared file, or seeded weights regenerated to the same bytes.
        let weights: URL
        let tolerance: Double
        if let seed = meta.weights.seeded {
            let directory = try TestData.temporaryDirectory("foldkit-opencv-\(model)")
            addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
            weights = directory.appendingPathComponent("\(model).seed\(seed).weights")
            try writeSeededWeights(cfg: cfg, seed: seed, to: weights)
            tolerance = Self.seededWeightsTolerance
        } else if let path = meta.weights.path {
            weights = try TestData.sharedFile(path)
            tolerance = Self.realWeightsTolerance
        } else {
            XCTFail("\(model): meta.json weights has neither path nor seeded")
            return
        }
        let weightsSha256 = try Checksum.sha256Hex(fileAt: weights.path)
        guard weightsSha256 == meta.weights.sha256 else {
            XCTFail("\(model): weights \(weights.path) have sha256 \(weightsSha256), the reference was made from \(meta.weights.sha256)")
            return
        }

        let network = try readNetwork(
            cfg: cfg, weights: weights, epsilon: meta.bnEpsilon,
            height: meta.inputSize.height, width: meta.inputSize.width)
        XCTAssertEqual(network.layers.count, meta.layerCount, "\(model): layer count")
        XCTAssertEqual(meta.layers.count + meta.skipped.count, meta.layerCount, "\(model): meta.json covers every layer")
        XCTAssertEqual(
            network.inputShape,
            ActivationShape(channels: meta.inputSize.channels, height: meta.inputSize.height, width: meta.inputSize.width),
            "\(model): input shape")

        let input = try NPYFile.read(path: folder.appendingPathComponent("input.npy").path)
        XCTAssertEqual(input.shape, [1, meta.inputSize.channels, meta.inputSize.height, meta.inputSize.width], "\(model): input.npy shape")
        let outputs = try runAllLayers(network, input: input.values.map(Double.init))
        XCTAssertEqual(outputs.count, network.layers.count, "\(model): one output per layer")

        var failures: [String] = []
        var worst = (relative: 0.0, layer: -1)
        for record in meta.layers {
            let label = "layer \(record.index) [\(record.type)] (OpenCV \(record.opencvName))"
            guard record.index < outputs.count, record.index < network.layers.count else {
                failures.append("\(label): FoldKit has no such layer")
                continue
            }
            let reference = try NPYFile.read(path: folder.appendingPathComponent(record.file).path)
            let ours = outputs[record.index]
            let expectedShape = Self.activationShape(opencvShape: reference.shape)
            let ourShape = network.layers[record.index].outputShape
            guard ours.count == reference.values.count, expectedShape == nil || expectedShape == ourShape else {
                failures.append("\(label): shape \(ourShape) (\(ours.count) values), OpenCV \(reference.shape)")
                continue
            }
            let closeness = Closeness.compare(ours, reference.values, scaledTolerance: tolerance)
            let maxAbsReference = closeness.referenceScale, maxDeviation = closeness.worstDeviation, at = closeness.worstIndex
            let relative = maxAbsReference > 0 ? maxDeviation / maxAbsReference : maxDeviation
            if !(relative <= worst.relative) { worst = (relative, record.index) }
            if !closeness.passed, at >= 0 {
                let plane = ourShape.planeSize
                let position = plane > 0 ? "c \(at / plane), y \((at % plane) / max(ourShape.width, 1)), x \(at % max(ourShape.width, 1))" : "\(at)"
                failures.append(
                    "\(label): max|ours - opencv| = \(maxDeviation) at \(position) (ours \(ours[at]), opencv \(reference.values[at])); "
                        + "max|opencv| = \(maxAbsReference); relative \(relative) > \(tolerance); \(closeness.failingCount) values outside, "
                        + "\(closeness.nonFiniteCount) NaN/Inf")
            }
        }
        print(
            "\(model): \(meta.layers.count) layers compared with OpenCV \(meta.opencvVersion), \(meta.skipped.count) skipped; "
                + "worst relative deviation \(worst.relative) at layer \(worst.layer); tolerance \(tolerance)")
        if !failures.isEmpty {
            XCTFail(
                "\(model): \(failures.count) of \(meta.layers.count) layers differ from OpenCV beyond \(tolerance) x max|opencv| "
                    + "(in layer order, the first is the first over tolerance):\n  " + failures.joined(separator: "\n  "))
        }
    }

    /// (1, C, H, W) -> C x H x W; (1, N) -> N x 1 x 1; other ranks are not compared by shape.
    private static func activationShape(opencvShape shape: [Int]) -> ActivationShape? {
        switch shape.count {
        case 4 where shape[0] == 1: return ActivationShape(channels: shape[1], height: shape[2], width: shape[3])
        case 2 where shape[0] == 1: return .vector(shape[1])
        default: return nil
        }
    }

    private func referenceFolders() throws -> [String] {
        let root = TestData.fixture("opencv")
        return try FileManager.default.contentsOfDirectory(atPath: root.path).filter { name in
            FileManager.default.fileExists(atPath: root.appendingPathComponent(name).appendingPathComponent("meta.json").path)
        }.sorted()
    }

    // MARK: - FoldKit calls (one place, so an API change touches only these)

    private func readNetwork(cfg: URL, weights: URL, epsilon: Double, height: Int, width: Int) throws -> Network {
        let options = DarknetReadOptions(
            epsilon: EpsilonConvention(epsilon: epsilon, placement: .insideSqrt), inputHeight: height, inputWidth: width)
        return try DarknetReader.read(cfgPath: cfg.path, weightsPath: weights.path, options: options)
    }

    private func writeSeededWeights(cfg: URL, seed: Int, to url: URL) throws {
        try DarknetSeededWeights.write(cfgPath: cfg.path, seed: UInt64(seed), to: url.path)
    }

    private func runAllLayers(_ network: Network, input: [Double]) throws -> [[Double]] {
        try Executor<Double>(network: network).run(input: input, retention: .all)
    }
}

/// `Fixtures/opencv/<model>/meta.json`, as written by `Fixtures/opencv/generate.py`.
private struct OpenCVReferenceMeta: Decodable {
    struct Weights: Decodable {
        var root: String?
        var path: String?
        var seeded: Int?
        var sha256: String
    }
    struct InputSize: Decodable {
        var height: Int
        var width: Int
        var channels: Int
    }
    struct LayerRecord: Decodable {
        var index: Int
        var type: String
        var opencvName: String
        var opencvType: String
        /// The .npy holding the output; layers with bit-identical outputs ([dropout], one-input [route]) share one.
        var file: String
        var shape: [Int]
        var maxAbs: Double
    }
    struct Skipped: Decodable {
        var index: Int
        var type: String
        var reason: String
    }
    var model: String
    var cfgRoot: String
    var cfg: String
    var cfgSha256: String
    var weights: Weights
    var inputSize: InputSize
    var bnEpsilon: Double
    var bnEpsilonMode: String
    var layerCount: Int
    var layers: [LayerRecord]
    var skipped: [Skipped]
    var opencvVersion: String
}
