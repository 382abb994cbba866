import FoldKitDetection
import XCTest

@testable import FoldKitCore
@testable import FoldKitVerify

/// `BoxDecisionReach`: the intervals are the true extremes (checked against brute-force perturbations of
/// the head's input), and a box found by one network only is borderline exactly when an allowed deviation
/// could make or lose it.
final class BoxDecisionReachTests: XCTestCase {
    /// FoldKit's SplitMix64 as a `RandomNumberGenerator`, for seeded draws.
    private struct SeededGenerator: RandomNumberGenerator {
        var splitMix: SplitMix64
        mutating func next() -> UInt64 { splitMix.next() }
    }

    private func yoloHead() -> DetectionHead {
        DetectionHead(kind: .yolo, classes: 2, anchors: [10, 13], mask: [0])
    }

    private func logistic(_ x: Double) -> Double { 1 / (1 + exp(-x)) }

    /// sigmoid(logit(p) -/+ 2A) bounds one softmax entry when every logit moves by at most A, and is reached
    /// by moving the entry's logit down (up) and all others up (down): checked on seeded random vectors
    /// against 2000 random perturbations each.
    func testSoftmaxIntervalIsTheExtremeOfEveryPerturbation() {
        var generator = SeededGenerator(splitMix: SplitMix64(seed: 7))
        for _ in 0..<20 {
            let n = Int.random(in: 2...8, using: &generator)
            let logits = (0..<n).map { _ in Double.random(in: -4...4, using: &generator) }
            let allowance = Double.random(in: 0.01...1.5, using: &generator)
            func softmax(_ z: [Double]) -> [Double] {
                let m = z.max()!
                let e = z.map { exp($0 - m) }
                let s = e.reduce(0, +)
                return e.map { $0 / s }
            }
            let p = softmax(logits)
            let reach = BoxDecisionReach(
                head: DetectionHead(kind: .region, classes: n, anchors: [1, 1], mask: [0], softmax: true), allowance: allowance)
            let range = reach.interval(Float(p[0]), form: .softmax)
            let down = softmax(logits.enumerated().map { $0.offset == 0 ? $0.element - allowance : $0.element + allowance })[0]
            let up = softmax(logits.enumerated().map { $0.offset == 0 ? $0.element + allowance : $0.element - allowance })[0]
            XCTAssertEqual(Double(range.lowerBound), down, accuracy: 1e-6)
            XCTAssertEqual(Double(range.upperBound), up, accuracy: 1e-6)
            for _ in 0..<2000 {
                let moved = softmax(logits.map { $0 + Double.random(in: -allowance...allowance, using: &generator) })[0]
                XCTAssertGreaterThanOrEqual(moved, Double(range.lowerBound) - 1e-6)
                XCTAssertLessThanOrEqual(moved, Double(range.upperBound) + 1e-6)
            }
        }
    }

    /// A [yolo] box: objectness sigmoid(0.5) and class sigmoid(1.0), score 0.4556 above the threshold 0.3.
    /// The smallest allowance that can lose it solves sigmoid(0.5 - A) x sigmoid(1 - A) = 0.3; just below
    /// it the box is out of reach, just above it within reach.
    func testYoloBoxIsWithinReachExactlyPastTheAllowanceThatLosesIt() throws {
        let objectness = Float(logistic(0.5)), probability = Float(logistic(1.0))
        let box = Detection(classIndex: 0, score: objectness * probability, objectness: objectness, x: 0.5, y: 0.5, width: 0.1, height: 0.1)
        var low = 0.0, high = 2.0
        for _ in 0..<60 {
            let mid = (low + high) / 2
            if logistic(0.5 - mid) * logistic(1 - mid) > 0.3 { low = mid } else { high = mid }
        }
        XCTAssertFalse(BoxDecisionReach(head: yoloHead(), allowance: low * 0.99).reaches(box, threshold: 0.3))
        XCTAssertTrue(BoxDecisionReach(head: yoloHead(), allowance: high * 1.01).reaches(box, threshold: 0.3))
    }

    /// YOLO9000 (seeded he weights at 416 x 416, float16 storage): the reference's objectness at one cell is
    /// sigmoid(-0.8557) = 0.29824, just under the threshold 0.3, so only the folded network keeps the box,
    /// whose class probability 0.8253 is its score. It is within reach of any allowance past 0.0085 on the
    /// objectness logit, and out of reach of a tiny one; a head without reach leaves it clearly above.
    func testTreeHeadObjectnessNearTheThresholdIsBorderline() {
        let tree = ClassTree(parents: [-1, -1, 0, 0])
        let head = DetectionHead(kind: .region, classes: 4, anchors: [1, 1], mask: [0], softmax: true, tree: tree)
        let objectness = Float(logistic(-0.8557 + 0.012))
        let folded = Detection(classIndex: 3, score: 0.8253, objectness: objectness, x: 0.5, y: 0.5, width: 0.1, height: 0.1, cell: 50)
        let frame = ImageFrame(networkInput: ActivationShape(channels: 3, height: 416, width: 416))
        func compare(allowance: Double?) -> DetectionComparison {
            var settings = BoxComparison.Settings(threshold: 0.3, nmsIoU: 0.5, minimumIoU: 0.99, frame: frame)
            settings.classDecisionHeads = [0]
            if let allowance { settings.reach = [0: BoxDecisionReach(head: head, allowance: allowance)] }
            return BoxComparison.compare(reference: DecodedBoxes(boxes: []), candidate: DecodedBoxes(boxes: [folded]), settings: settings)
        }
        XCTAssertTrue(compare(allowance: 0.05).pass)
        XCTAssertEqual(compare(allowance: 0.05).borderlineUnpaired, 1)
        XCTAssertFalse(compare(allowance: 1e-4).pass)
        XCTAssertFalse(compare(allowance: nil).pass)
        XCTAssertEqual(BoxDecisionReach.depth(of: 3, in: tree), 2)
        XCTAssertEqual(BoxDecisionReach.depth(of: 1, in: tree), 1)
    }

    /// A logistic objectness saturated at exactly 1 in float32 (a logit of 1e9 against an allowance of 1e13,
    /// as seeded networks with activations to 1e15 give): any score is within reach.
    func testSaturatedObjectnessWithAHugeAllowanceIsWithinReach() {
        let box = Detection(classIndex: 0, score: 1, objectness: 1, x: 0.5, y: 0.5, width: 0.1, height: 0.1)
        XCTAssertTrue(BoxDecisionReach(head: yoloHead(), allowance: 1.9e13).reaches(box, threshold: 0.25))
        XCTAssertFalse(BoxDecisionReach(head: yoloHead(), allowance: 1).reaches(box, threshold: 0.25))
    }
}
