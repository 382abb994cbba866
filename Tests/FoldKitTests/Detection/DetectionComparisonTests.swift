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

    /// Enough boxes of many classes that NMS is split by class over the cores: the kept boxes and their
    /// order must be exactly those of one NMS over all boxes, and the pairing by identity must hold.
    func testManyBoxesKeepNMSOrderAndPairing() {
        var rng = SplitMix64(seed: 5)
        var reference: [Detection] = []
        for cell in 0..<3000 {
            for classIndex in 0..<(cell % 4 == 0 ? 3 : 1) {
                let score = Float(0.3 + 0.7 * rng.nextUnit())
                reference.append(Detection(classIndex: (cell * 7 + classIndex) % 23, score: classIndex == 2 ? 0.5 : score, objectness: score,
                                           x: Float(rng.nextUnit()), y: Float(rng.nextUnit()), width: Float(rng.nextUnit() * 0.3),
                                           height: Float(rng.nextUnit() * 0.3), head: cell % 3, cell: cell, anchor: classIndex))
            }
        }
        let candidate = reference.reversed().map { box -> Detection in
            var moved = box
            moved.score += 1e-6
            return moved
        }
        let c = DetectionComparison(referenceCandidates: reference, candidateCandidates: candidate, threshold: 0.3, nmsIoU: 0.45, minimumIoU: 0.99)
        XCTAssertGreaterThan(reference.count, 4096)
        XCTAssertEqual(c.pairs.map(\.reference), DetectionDecoder.nonMaxSuppression(reference, iouThreshold: 0.45))
        XCTAssertEqual(c.pairedBeforeNMS, reference.count)
        XCTAssertTrue(c.pairs.allSatisfy { $0.candidate?.cell == $0.reference.cell && $0.candidate?.classIndex == $0.reference.classIndex })
        XCTAssertTrue(c.pass)
    }
}

final class SubPixelBoxTests: XCTestCase {
    /// A box far thinner than one input pixel: a shift of 1e-4 of its height is invisible at pixel
    /// resolution and must not fail the comparison, while a shift of a whole pixel still does.
    func testSubPixelBoxesAreComparedAtPixelResolution() {
        let thin = Detection(classIndex: 0, score: 0.9, objectness: 0.9, x: 0.5, y: 0.5, width: 0.3, height: 3.5e-5)
        var nudged = thin; nudged.y += 2.4e-7 * 10
        let pixel: (width: Float, height: Float) = (1 / 416, 1 / 416)
        let raw = DetectionComparison(referenceCandidates: [thin], candidateCandidates: [nudged], threshold: 0.3, nmsIoU: 0.5, minimumIoU: 0.99)
        XCTAssertFalse(raw.pass, "without a resolution floor the sub-pixel shift fails")
        let resolved = DetectionComparison(referenceCandidates: [thin], candidateCandidates: [nudged], threshold: 0.3, nmsIoU: 0.5, minimumIoU: 0.99, minimumSide: pixel)
        XCTAssertTrue(resolved.pass)
        var moved = thin; moved.y += 1.0 / 416
        XCTAssertFalse(DetectionComparison(referenceCandidates: [thin], candidateCandidates: [moved], threshold: 0.3, nmsIoU: 0.5, minimumIoU: 0.99, minimumSide: pixel).pass)
    }
}
