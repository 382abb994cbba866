import FoldKit
import XCTest

final class DetectionComparisonTests: XCTestCase {
    private func box(_ cell: Int, score: Float, x: Float = 0.5) -> Detection {
        Detection(classIndex: 0, score: score, objectness: score, x: x, y: 0.5, width: 0.1, height: 0.1, cell: cell)
    }

    func testIdenticalBoxesAgree() {
        let boxes = [box(1, score: 0.9), box(2, score: 0.6, x: 0.1)]
        let c = DetectionComparison(referenceCandidates: boxes, candidateCandidates: boxes, threshold: 0.3, nmsIoU: 0.5, minimumIoU: 0.99)
        XCTAssertTrue(c.pass)
        XCTAssertEqual(c.pairedBeforeNMS, 2)
        XCTAssertEqual(c.referenceCount, 2)
    }

    func testBoxJustOverTheThresholdInOneNetworkIsBorderline() {
        let reference = [box(1, score: 0.9), box(2, score: 0.30005, x: 0.1)]
        let candidate = [box(1, score: 0.9001)]
        let c = DetectionComparison(referenceCandidates: reference, candidateCandidates: candidate, threshold: 0.3, nmsIoU: 0.5, minimumIoU: 0.99)
        XCTAssertTrue(c.pass)
        XCTAssertEqual(c.borderlineUnpaired, 1)
    }

    func testMissingConfidentBoxOrMovedBoxFails() {
        let reference = [box(1, score: 0.9), box(2, score: 0.7, x: 0.1)]
        let missing = DetectionComparison(referenceCandidates: reference, candidateCandidates: [box(1, score: 0.9)], threshold: 0.3, nmsIoU: 0.5, minimumIoU: 0.99)
        XCTAssertFalse(missing.pass)
        XCTAssertEqual(missing.clearlyUnpaired.map(\.cell), [2])
        let moved = DetectionComparison(referenceCandidates: reference, candidateCandidates: [box(1, score: 0.9, x: 0.52), box(2, score: 0.7, x: 0.1)],
                                        threshold: 0.3, nmsIoU: 0.5, minimumIoU: 0.99)
        XCTAssertFalse(moved.pass)
        XCTAssertLessThan(moved.smallestIoU, 0.99)
    }
}
