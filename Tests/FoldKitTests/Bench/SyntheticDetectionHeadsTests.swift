import Foundation
import XCTest

@testable import FoldKit

/// The decode benchmark's synthetic frame must be what it claims: YOLOv3's three heads, a realistic
/// background that yields no box, and planted objects that decode (by Darknet's formulas, computed
/// here by hand in Double) to exactly one box each after NMS.
final class SyntheticDetectionHeadsTests: XCTestCase {
    func testShapesMatchYoloV3At288() {
        let heads = SyntheticDetectionHeads.yoloV3(classes: 20, inputSize: 288, objectCount: 6)
        XCTAssertEqual(heads.heads.map(\.shape.width), [9, 18, 36])
        XCTAssertEqual(heads.heads.map(\.shape.channels), [75, 75, 75])
        XCTAssertEqual(heads.heads.map(\.head.mask), [[6, 7, 8], [3, 4, 5], [0, 1, 2]])
        XCTAssertEqual(heads.boxCount, 3 * (81 + 324 + 1296))
    }

    func testPlantedObjectsDecodeToOneBoxEachWithDarknetGeometry() {
        let heads = SyntheticDetectionHeads.yoloV3(classes: 417, inputSize: 288, objectCount: 12)
        let candidates = heads.candidates(threshold: 0.25)
        // Each object and its weaker duplicate in the next column; nothing from the background.
        XCTAssertEqual(candidates.count, 24)
        let kept = heads.detect(threshold: 0.25, iouThreshold: 0.45)
        XCTAssertEqual(kept.count, 12)
        func sigmoid(_ x: Double) -> Double { 1 / (1 + exp(-x)) }
        for object in heads.objects {
            let grid = Double(heads.heads[object.head].shape.width)
            let anchor = heads.heads[object.head].head.mask[object.slot]
            guard let box = kept.first(where: { $0.classIndex == object.classIndex }) else {
                XCTFail("object of class \(object.classIndex) not found"); continue
            }
            XCTAssertEqual(box.head, object.head)
            XCTAssertEqual(box.cell, object.row * Int(grid) + object.column)
            XCTAssertEqual(Double(box.x), (Double(object.column) + sigmoid(2)) / grid, accuracy: 1e-6)
            XCTAssertEqual(Double(box.y), (Double(object.row) + sigmoid(2)) / grid, accuracy: 1e-6)
            XCTAssertEqual(Double(box.width), Double(SyntheticDetectionHeads.yoloV3Anchors[2 * anchor]) / 288, accuracy: 1e-6)
            XCTAssertEqual(Double(box.height), Double(SyntheticDetectionHeads.yoloV3Anchors[2 * anchor + 1]) / 288, accuracy: 1e-6)
            XCTAssertEqual(Double(box.score), sigmoid(4) * sigmoid(4), accuracy: 1e-6)
        }
    }

    func testTimingReportsMinimumAndMedian() {
        var calls = 0
        let timing = Timing.measure(runs: 5, warmup: 2) { calls += 1 }
        XCTAssertEqual(calls, 7)
        XCTAssertEqual(timing.runs, 5)
        XCTAssertLessThanOrEqual(timing.minimum, timing.median)
    }
}
