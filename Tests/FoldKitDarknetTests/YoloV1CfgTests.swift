import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKitCore
@testable import FoldKitDarknet

/// YOLOv1's network descriptions (../shared/darknet-cfg-all/yolov1) read without weights: [local]
/// (locally connected, 256 filters of 3x3 on the 7x7 grid) and the [detection] head over a [connected]
/// vector of side*side*(classes + num*5) values; the binary xyolo.test.cfg stays refused.
final class YoloV1CfgTests: XCTestCase {
    private struct Expectation {
        var layers: Int
        var shapes: [Int: String]
        /// The [detection] head: classes, boxes per cell, side.
        var head: (classes: Int, num: Int, side: Int)
    }

    // 7*7*(20 + 3*5) = 1715, 7*7*(80 + 3*5) = 4655, 7*7*(20 + 2*5) = 1470.
    private let expectations: [String: Expectation] = [
        "yolo.cfg": Expectation(
            layers: 32, shapes: [27: "1024x7x7", 28: "256x7x7", 29: "256x7x7", 30: "1715x1x1", 31: "1715x1x1"], head: (20, 3, 7)),
        "yolo-coco.cfg": Expectation(
            layers: 31, shapes: [27: "1024x7x7", 28: "256x7x7", 29: "4655x1x1", 30: "4655x1x1"], head: (80, 3, 7)),
        "tiny-yolo.cfg": Expectation(layers: 16, shapes: [13: "256x7x7", 14: "1470x1x1", 15: "1470x1x1"], head: (20, 2, 7)),
        "tiny-coco.cfg": Expectation(layers: 16, shapes: [13: "256x7x7", 14: "4655x1x1", 15: "4655x1x1"], head: (80, 3, 7)),
        "yolo-small.cfg": Expectation(layers: 34, shapes: [0: "3x448x448", 32: "1470x1x1", 33: "1470x1x1"], head: (20, 2, 7)),
    ]

    func testYoloV1CfgsReadWithExpectedShapes() throws {
        let directory = try TestData.sharedFile("darknet-cfg-all/yolov1")
        for (name, expectation) in expectations.sorted(by: { $0.key < $1.key }) {
            let network = try DarknetReader.read(cfgPath: directory.appendingPathComponent(name).path, weightsPath: nil)
            XCTAssertEqual(network.layers.count, expectation.layers, name)
            for (index, shape) in expectation.shapes {
                XCTAssertEqual(network.layers[index].outputShape.description, shape, "\(name) layer \(index)")
            }
            let last = expectation.layers - 1
            XCTAssertEqual(network.outputIndices, [last], name)
            guard case .detection(let head) = network.layers[last].kind else { return XCTFail("\(name): the last layer is not a head") }
            XCTAssertEqual(head.kind, .detection, name)
            XCTAssertEqual(head.classes, expectation.head.classes, name)
            XCTAssertEqual(head.boxesPerCell, expectation.head.num, name)
            XCTAssertEqual(head.side, expectation.head.side, name)
            XCTAssertEqual(head.coords, 4, name)
            XCTAssertTrue(head.squaredSides, name)
            XCTAssertFalse(head.softmax, name)
            XCTAssertTrue(head.undecodedMask.isEmpty, name)
        }
    }

    func testLocalLayerOfYoloCfg() throws {
        let network = try DarknetReader.read(cfgPath: TestData.sharedFile("darknet-cfg-all/yolov1/yolo.cfg").path, weightsPath: nil)
        guard case .locallyConnected(let local) = network.layers[28].kind else { return XCTFail("layer 28 is not [local]") }
        XCTAssertEqual(network.layers[28].kind.typeName, "local")
        XCTAssertEqual(local.inputChannels, 1024)
        XCTAssertEqual(local.outputChannels, 256)
        XCTAssertEqual(local.kernelSize, 3)
        XCTAssertEqual(local.stride, 1)
        XCTAssertEqual(local.padding, 1)
        XCTAssertEqual(local.activation, .leaky(slope: 0.1))
        // biases[256*7*7], then weights[49][256][1024][3][3]
        XCTAssertEqual(local.bias.shape, [256, 7, 7])
        XCTAssertEqual(local.weights.count, 49 * 256 * 1024 * 9)
    }

    func testXnorYoloV1IsRefused() throws {
        let path = try TestData.sharedFile("darknet-cfg-all/yolov1/xyolo.test.cfg").path
        XCTAssertThrowsError(try DarknetReader.read(cfgPath: path, weightsPath: nil)) { error in
            guard let e = error as? FoldKitError else { return XCTFail("\(error)") }
            XCTAssertEqual(e.kind, .unsupported)
            XCTAssertEqual(e.layer, "layer 3 [convolutional]")
            XCTAssertEqual(e.line, 31)  // the first xnor=1 line
            XCTAssertTrue(e.description.contains("binary"), e.description)
        }
    }
}
