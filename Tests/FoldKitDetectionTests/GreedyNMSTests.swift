import FoldKitCore
import Foundation
import XCTest

@testable import FoldKitDetection

/// The indexed NMS (`DetectionDecoder.nonMaxSuppression`) against the plain O(n^2) greedy rule on boxes
/// of every kind random weights produce: tiny, huge, wide and thin, empty, inverted, off-image, tied
/// scores and exact duplicates, with enough boxes that the classes are spread over the cores.
final class GreedyNMSTests: XCTestCase {
    /// Stable sort by (descending score, class, head, cell, anchor), then every box against every kept box
    /// of its class; `sharesCell` restricts the pairs for negative thresholds (the 32 x 32 grid rule).
    private func naive(_ boxes: [Detection], iouThreshold: Float, gridRule: Bool = false) -> [Detection] {
        let sorted = boxes.sorted { a, b in
            a.score != b.score ? a.score > b.score : (a.classIndex, a.head, a.cell, a.anchor) < (b.classIndex, b.head, b.cell, b.anchor)
        }
        func cells(_ low: Float, _ high: Float) -> ClosedRange<Int> {
            func clamp(_ v: Float) -> Int { min(max(Int((v * 32).rounded(.down)), 0), 31) }
            return min(clamp(low), clamp(high))...max(clamp(low), clamp(high))
        }
        func sharesCell(_ a: Detection, _ b: Detection) -> Bool {
            cells(a.x - a.width / 2, a.x + a.width / 2).overlaps(cells(b.x - b.width / 2, b.x + b.width / 2))
                && cells(a.y - a.height / 2, a.y + a.height / 2).overlaps(cells(b.y - b.height / 2, b.y + b.height / 2))
        }
        var kept: [Detection] = []
        for box in sorted
        where !kept.contains(where: {
            $0.classIndex == box.classIndex && (!gridRule || sharesCell($0, box)) && $0.iou(box) > iouThreshold
        }) {
            kept.append(box)
        }
        return kept
    }

    private func randomBoxes(count: Int, seed: UInt64, wild: Bool) -> [Detection] {
        var rng = SplitMix64(seed: seed)
        func unit() -> Float { Float(rng.nextUnit()) }
        var boxes: [Detection] = []
        for i in 0..<count {
            var w: Float, h: Float
            switch rng.next() % 8 {
            case 0: (w, h) = (0.0001 + 0.01 * unit(), 0.0001 + 0.01 * unit())  // tiny
            case 1: (w, h) = (1 + 1000 * unit(), 1 + 1000 * unit())  // huge
            case 2: (w, h) = (100 + 4000 * unit(), 0.0001 * unit())  // wide and thin
            case 3: (w, h) = (0.001 * unit(), 2 + 600 * unit())  // tall and narrow
            case 4: (w, h) = (0, 0.1 * unit())  // empty
            case 5: (w, h) = (-0.1 * unit(), 0.2 * unit())  // inverted
            default: (w, h) = (0.02 + 0.4 * unit(), 0.02 + 0.4 * unit())
            }
            if wild && rng.next() % 50 == 0 { w = rng.next() % 2 == 0 ? .infinity : 3e38 }
            // Scores on a coarse ladder so that many tie and the class/head/cell/anchor order decides.
            let score = 0.3 + Float(rng.next() % 64) / 100
            let box = Detection(
                classIndex: Int(rng.next() % 7) * (i % 97 == 0 ? 1000 : 1), score: score, objectness: score,
                x: -0.5 + 2 * unit(), y: -0.5 + 2 * unit(), width: w, height: h,
                head: Int(rng.next() % 3), cell: Int(rng.next() % 500), anchor: Int(rng.next() % 3))
            boxes.append(box)
            if rng.next() % 20 == 0 { boxes.append(box) }  // an exact duplicate
        }
        return boxes
    }

    func testMatchesAllPairsGreedyOnMixedBoxes() {
        let boxes = randomBoxes(count: 6000, seed: 11, wild: false)
        XCTAssertGreaterThan(boxes.count, 4096)  // the classes run on all cores
        for threshold: Float in [0.5, 0.45, 0.9, 0] {
            let expected = naive(boxes, iouThreshold: threshold)
            XCTAssertLessThan(expected.count, boxes.count)
            XCTAssertEqual(DetectionDecoder.nonMaxSuppression(boxes, iouThreshold: threshold), expected, "threshold \(threshold)")
        }
    }

    func testInfiniteAndOverflowingWidthsMatchAllPairsGreedy() {
        let boxes = randomBoxes(count: 3000, seed: 12, wild: true)
        XCTAssertTrue(boxes.contains { !$0.width.isFinite })
        XCTAssertEqual(DetectionDecoder.nonMaxSuppression(boxes, iouThreshold: 0.5), naive(boxes, iouThreshold: 0.5))
    }

    /// A negative threshold suppresses every later box of the class that shares a 32 x 32 cell with a kept one.
    func testNegativeThresholdFollowsTheGridRule() {
        let boxes = randomBoxes(count: 1500, seed: 13, wild: false)
        let expected = naive(boxes, iouThreshold: -0.1, gridRule: true)
        XCTAssertNotEqual(expected.count, naive(boxes, iouThreshold: -0.1).count)  // the rule matters here
        XCTAssertEqual(DetectionDecoder.nonMaxSuppression(boxes, iouThreshold: -0.1), expected)
    }

    func testSmallInputsAndEmptyInput() {
        XCTAssertEqual(DetectionDecoder.nonMaxSuppression([], iouThreshold: 0.5), [])
        let boxes = randomBoxes(count: 200, seed: 14, wild: false)
        XCTAssertEqual(DetectionDecoder.nonMaxSuppression(boxes, iouThreshold: 0.45), naive(boxes, iouThreshold: 0.45))
    }
}
