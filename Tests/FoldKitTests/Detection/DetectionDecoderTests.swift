import Foundation
import XCTest

@testable import FoldKit

final class DetectionDecoderTests: XCTestCase {
    private func logit(_ p: Float) -> Float { log(p / (1 - p)) }

    /// A 2x2 [yolo] grid with one anchor and 3 classes; one cell holds a confident box.
    func testYoloBoxFollowsDarknetFormulas() {
        let head = DetectionHead(kind: .yolo, classes: 3, anchors: [10, 14, 23, 27], mask: [1], scaleXY: 1.05)
        let shape = ActivationShape(channels: 8, height: 2, width: 2)
        var output = [Float](repeating: -10, count: shape.count)  // everything improbable
        let plane = 4, cell = 3  // row 1, column 1
        output[0 * plane + cell] = logit(0.25)  // tx
        output[1 * plane + cell] = logit(0.75)  // ty
        output[2 * plane + cell] = log(2)  // tw
        output[3 * plane + cell] = 0  // th
        output[4 * plane + cell] = logit(0.9)  // objectness
        output[6 * plane + cell] = logit(0.8)  // class 1
        let input = ActivationShape(channels: 3, height: 64, width: 32)
        let found = output.withUnsafeBufferPointer {
            DetectionDecoder.decode(head: head, output: $0, shape: shape, networkInput: input, threshold: 0.3)
        }
        XCTAssertEqual(found.count, 1)
        guard let box = found.first else { return }
        XCTAssertEqual(box.classIndex, 1)
        XCTAssertEqual(box.score, 0.9 * 0.8, accuracy: 1e-5)
        XCTAssertEqual(box.x, (1 + 0.25 * 1.05 - 0.025) / 2, accuracy: 1e-5)
        XCTAssertEqual(box.y, (1 + 0.75 * 1.05 - 0.025) / 2, accuracy: 1e-5)
        XCTAssertEqual(box.width, 2 * 23 / 32, accuracy: 1e-5)
        XCTAssertEqual(box.height, 27.0 / 64, accuracy: 1e-5)
        XCTAssertEqual(box.anchor, 1)
    }

    /// [region]: anchors in grid cells, softmax over classes.
    func testRegionUsesSoftmaxAndGridAnchors() {
        let head = DetectionHead(kind: .region, classes: 2, anchors: [1, 2], mask: [0])
        let shape = ActivationShape(channels: 7, height: 1, width: 2)
        var output = [Float](repeating: 0, count: shape.count)
        let plane = 2, cell = 0
        output[4 * plane + cell] = logit(0.8)
        output[5 * plane + cell] = log(3)  // class 0: e^log3 = 3
        output[6 * plane + cell] = 0  // class 1: 1  -> softmax [0.75, 0.25]
        output[4 * plane + 1] = -20
        let found = output.withUnsafeBufferPointer {
            DetectionDecoder.decode(
                head: head, output: $0, shape: shape, networkInput: ActivationShape(channels: 3, height: 32, width: 64), threshold: 0.3)
        }
        XCTAssertEqual(found.map(\.classIndex), [0])
        XCTAssertEqual(found[0].score, 0.8 * 0.75, accuracy: 1e-5)
        XCTAssertEqual(found[0].x, 0.5 / 2, accuracy: 1e-6)
        XCTAssertEqual(found[0].width, 1.0 / 2, accuracy: 1e-6)
        XCTAssertEqual(found[0].height, 2.0 / 1, accuracy: 1e-6)
    }

    func testNonMaxSuppressionIsPerClass() {
        let a = Detection(classIndex: 0, score: 0.9, objectness: 0.9, x: 0.5, y: 0.5, width: 0.2, height: 0.2)
        var b = a; b.score = 0.8; b.x = 0.51  // overlaps a, same class: dropped
        var c = b; c.classIndex = 1  // overlaps a, other class: kept
        var d = a; d.score = 0.7; d.x = 0.9  // no overlap: kept
        let kept = DetectionDecoder.nonMaxSuppression([d, b, c, a], iouThreshold: 0.5)
        XCTAssertEqual(kept.map(\.score), [0.9, 0.8, 0.7])
        XCTAssertEqual(kept.map(\.classIndex), [0, 1, 0])
    }

    func testIoU() {
        let a = Detection(classIndex: 0, score: 1, objectness: 1, x: 0.5, y: 0.5, width: 0.2, height: 0.2)
        var b = a; b.x = 0.6
        XCTAssertEqual(a.iou(b), 0.02 / 0.06, accuracy: 1e-5)
        XCTAssertEqual(a.iou(a), 1, accuracy: 1e-6)
    }
}

final class NonMaxSuppressionScaleTests: XCTestCase {
    /// The grid-indexed NMS must keep exactly what the plain all-pairs greedy NMS keeps.
    func testGridIndexMatchesAllPairsGreedy() {
        var rng = SplitMix64(seed: 5)
        var boxes: [Detection] = []
        for i in 0..<600 {
            boxes.append(
                Detection(
                    classIndex: Int(rng.next() % 3), score: Float(rng.nextUnit()), objectness: 1,
                    x: Float(rng.nextUnit()), y: Float(rng.nextUnit()), width: Float(0.02 + 0.4 * rng.nextUnit()),
                    height: Float(0.02 + 0.4 * rng.nextUnit()), cell: i))
        }
        let sorted = boxes.sorted { $0.score > $1.score }
        var expected: [Detection] = []
        for b in sorted where !expected.contains(where: { $0.classIndex == b.classIndex && $0.iou(b) > 0.5 }) { expected.append(b) }
        XCTAssertEqual(DetectionDecoder.nonMaxSuppression(boxes, iouThreshold: 0.5), expected)
    }
}
