import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKitCore
@testable import FoldKitDarknet

/// Every network description in ../shared/darknet-cfg reads without weights, with output shapes of key
/// layers worked out by hand from the cfg (stride-32 grids: 416/32 = 13, 608/32 = 19; a YOLOv3-style
/// head has 3 * (80 + 5) = 255 channels, a YOLOv2 VOC region 5 * (20 + 5) = 125, COCO 5 * 85 = 425).
final class SharedCfgTests: XCTestCase {
    private struct Expectation {
        var layers: Int
        var shapes: [Int: String]
        /// Total floats the cfg implies, where the size of the published .weights file is known:
        /// (file bytes - header bytes) / 4.
        var floats: Int? = nil
    }

    private let expectations: [String: Expectation] = [
        // yolov3.weights is 248,007,048 bytes: (248007048 - 20) / 4.
        "yolov3.cfg": Expectation(
            layers: 107,
            shapes: [
                36: "256x52x52", 61: "512x26x26", 74: "1024x13x13", 81: "255x13x13", 82: "255x13x13",
                86: "768x26x26", 94: "255x26x26", 106: "255x52x52",
            ], floats: 62_001_757),
        // yolov4.weights is 257,717,640 bytes.
        "yolov4.cfg": Expectation(
            layers: 162, shapes: [113: "2048x19x19", 139: "255x76x76", 150: "255x38x38", 161: "255x19x19"], floats: 64_429_405),
        // yolov4-tiny.weights is 24,251,276 bytes; layer 3 takes the second half of 64 channels.
        "yolov4-tiny.cfg": Expectation(layers: 38, shapes: [0: "32x208x208", 3: "32x104x104", 30: "255x13x13", 37: "255x26x26"], floats: 6_062_814),
        "yolov4-tiny-custom.cfg": Expectation(layers: 38, shapes: [30: "255x13x13", 37: "255x26x26"]),
        "yolov4-tiny-3l.cfg": Expectation(layers: 45, shapes: [30: "255x19x19", 37: "255x38x38", 44: "255x76x76"]),
        // yolov3-tiny.weights is 35,434,956 bytes; layer 11 is the size-2 stride-1 maxpool.
        "yolov3-tiny.cfg": Expectation(layers: 24, shapes: [11: "512x13x13", 16: "255x13x13", 23: "255x26x26"], floats: 8_858_734),
        "yolov3-tiny-prn.cfg": Expectation(layers: 28, shapes: [18: "255x13x13", 27: "255x26x26"]),
        // classes=2: 3 * (2 + 5) = 21
        "yolov3-tiny_3l.cfg": Expectation(layers: 31, shapes: [16: "21x19x19", 23: "21x38x38", 30: "21x76x76"]),
        "yolov7-tiny.cfg": Expectation(layers: 99, shapes: [90: "255x52x52", 94: "255x26x26", 98: "255x13x13"]),
        // yolov2-tiny-voc.weights is 63,471,556 bytes with a 16-byte header.
        "yolov2-tiny-voc.cfg": Expectation(layers: 16, shapes: [11: "512x13x13", 14: "125x13x13", 15: "125x13x13"], floats: 15_867_885),
        "tiny-yolo-voc.cfg": Expectation(layers: 16, shapes: [14: "125x13x13", 15: "125x13x13"]),
        "yolov2-tiny.cfg": Expectation(layers: 16, shapes: [15: "425x13x13"]),
        // route 16 (512x26x26) -> conv 64 -> reorg 2 -> 256x13x13; route -1,-4 -> 1280x13x13
        "yolov2-voc.cfg": Expectation(layers: 32, shapes: [25: "512x26x26", 27: "256x13x13", 28: "1280x13x13", 31: "125x13x13"]),
        "yolov2.cfg": Expectation(layers: 32, shapes: [27: "256x13x13", 28: "1280x13x13", 31: "425x13x13"]),
        // the old YOLOv2: reorg of 512x26x26 directly -> 2048x13x13
        "yolo-voc.2.0.cfg": Expectation(layers: 31, shapes: [26: "2048x13x13", 30: "125x13x13"]),
        "darknet19.cfg": Expectation(layers: 27, shapes: [23: "1000x7x7", 24: "1000x1x1", 25: "1000x1x1"]),
        "tiny.cfg": Expectation(layers: 23, shapes: [20: "1000x1x1", 21: "1000x1x1"]),
        "efficientnet-lite3.cfg": Expectation(layers: 117, shapes: [113: "1536x1x1", 115: "1000x1x1", 116: "1000x1x1"]),
        "enet-coco.cfg": Expectation(layers: 146, shapes: [3: "32x1x1", 136: "255x13x13", 145: "255x26x26"]),
    ]

    func testEveryCfgReadsWithExpectedShapes() throws {
        let directory = try TestData.sharedFile("darknet-cfg")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".cfg") }.sorted()
        XCTAssertEqual(names.count, expectations.count + 1, "a cfg without expectations (or a missing one): \(names)")
        for name in names where name != "yolov3-tiny_xnor.cfg" {
            guard let expectation = expectations[name] else {
                XCTFail("no expectation for \(name)")
                continue
            }
            let network = try DarknetReader.read(cfgPath: directory.appendingPathComponent(name).path, weightsPath: nil)
            XCTAssertEqual(network.layers.count, expectation.layers, name)
            for (index, shape) in expectation.shapes {
                XCTAssertEqual(network.layers[index].outputShape.description, shape, "\(name) layer \(index)")
            }
            if let floats = expectation.floats {
                XCTAssertEqual(network.parameterCount, floats, name)
            }
            XCTAssertEqual(network.format, .darknet)
            XCTAssertEqual(network.inputOrder, .channelsFirst)
            XCTAssertTrue(network.layers.enumerated().allSatisfy { $0.offset == $0.element.index && $0.element.name == String($0.offset) })
        }
    }

    func testDetectionHeadsAreTheOutputs() throws {
        let yolov3 = try DarknetReader.read(cfgPath: TestData.sharedFile("darknet-cfg/yolov3.cfg").path, weightsPath: nil)
        XCTAssertEqual(yolov3.outputIndices, [82, 94, 106])
        guard case .detection(let head) = yolov3.layers[82].kind else { return XCTFail("layer 82 is not a detection head") }
        XCTAssertEqual(head.kind, .yolo)
        XCTAssertEqual(head.mask, [6, 7, 8])
        XCTAssertEqual(head.classes, 80)
        XCTAssertEqual(head.anchors.count, 18)
        XCTAssertEqual(head.anchors.suffix(2), [373, 326])

        let tinyVoc = try DarknetReader.read(cfgPath: TestData.sharedFile("darknet-cfg/yolov2-tiny-voc.cfg").path, weightsPath: nil)
        guard case .detection(let region) = tinyVoc.layers[15].kind else { return XCTFail("layer 15 is not a region") }
        XCTAssertEqual(region.kind, .region)
        XCTAssertEqual(region.mask, [0, 1, 2, 3, 4])
        XCTAssertEqual(region.classes, 20)
        XCTAssertEqual(region.coords, 4)
        XCTAssertTrue(region.softmax)
        XCTAssertEqual(region.anchors.prefix(2), [1.08, 1.19])
    }

    func testYolov7TinyNewCoordsAndYolov4ScaleXY() throws {
        let v7 = try DarknetReader.read(cfgPath: TestData.sharedFile("darknet-cfg/yolov7-tiny.cfg").path, weightsPath: nil)
        guard case .detection(let head) = v7.layers[98].kind else { return XCTFail("layer 98 is not a head") }
        XCTAssertTrue(head.newCoords)
        XCTAssertEqual(head.scaleXY, 2.0)
        let v4 = try DarknetReader.read(cfgPath: TestData.sharedFile("darknet-cfg/yolov4.cfg").path, weightsPath: nil)
        guard case .detection(let v4head) = v4.layers[139].kind else { return XCTFail("layer 139 is not a head") }
        XCTAssertEqual(v4head.scaleXY, 1.2)
        XCTAssertFalse(v4head.newCoords)
    }

    func testXnorCfgIsRefusedNamingTheBinaryLayer() throws {
        let path = try TestData.sharedFile("darknet-cfg/yolov3-tiny_xnor.cfg").path
        XCTAssertThrowsError(try DarknetReader.read(cfgPath: path, weightsPath: nil)) { error in
            guard let e = error as? FoldKitError else { return XCTFail("\(error)") }
            XCTAssertEqual(e.kind, .unsupported)
            XCTAssertEqual(e.file, path)
            XCTAssertEqual(e.layer, "layer 2 [convolutional]")
            XCTAssertEqual(e.line, 38)  // the xnor=1 line
            XCTAssertTrue(e.description.contains("binary"), e.description)
        }
    }

    func testInputSizeOverride() throws {
        let path = try TestData.sharedFile("darknet-cfg/yolov3-tiny.cfg").path
        let network = try DarknetReader.read(cfgPath: path, weightsPath: nil, options: DarknetReadOptions(inputHeight: 320, inputWidth: 608))
        XCTAssertEqual(network.inputShape.description, "3x320x608")
        XCTAssertEqual(network.layers[16].outputShape.description, "255x10x19")
    }
}
