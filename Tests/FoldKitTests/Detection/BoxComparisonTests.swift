import XCTest

@testable import FoldKit
@testable import FoldKitCore
@testable import FoldKitVerify

/// `BoxComparison.compare` on boxes given directly, in a frame that is the network input of
/// `inputSize` x `inputSize` pixels (sub-pixel sides count as one pixel).
func compareBoxes(
    _ reference: [Detection], _ candidate: [Detection], threshold: Float = 0.3, nmsIoU: Float = 0.5, minimumIoU: Float = 0.99,
    inputSize: Int = 1 << 20, overflows: [BoxOverflowHazard] = []
) -> DetectionComparison {
    let input = ActivationShape(channels: 3, height: inputSize, width: inputSize)
    return BoxComparison.compare(
        reference: DecodedBoxes(boxes: reference), candidate: DecodedBoxes(boxes: candidate, overflows: overflows),
        settings: .init(threshold: threshold, nmsIoU: nmsIoU, minimumIoU: minimumIoU, frame: ImageFrame(networkInput: input)))
}

final class BoxComparisonTests: XCTestCase {
    private func box(_ cell: Int, score: Float, x: Float = 0.5) -> Detection {
        Detection(classIndex: 0, score: score, objectness: score, x: x, y: 0.5, width: 0.1, height: 0.1, cell: cell)
    }

    func testIdenticalBoxesAgree() {
        let boxes = [box(1, score: 0.9), box(2, score: 0.6, x: 0.1)]
        let c = compareBoxes(boxes, boxes)
        XCTAssertTrue(c.pass)
        XCTAssertEqual(c.pairedBeforeNMS, 2)
        XCTAssertEqual(c.referenceCount, 2)
    }

    func testBoxJustOverTheThresholdInOneNetworkIsBorderline() {
        let reference = [box(1, score: 0.9), box(2, score: 0.30005, x: 0.1)]
        let candidate = [box(1, score: 0.9001)]
        let c = compareBoxes(reference, candidate)
        XCTAssertTrue(c.pass)
        XCTAssertEqual(c.borderlineUnpaired, 1)
    }

    /// A class-tree head (YOLO9000) picks one class per box where a probability crosses 0.5: one network
    /// picked class 343 at 0.5004, the other, just under 0.5 there, picked class 81 at 0.657 at the same
    /// cell and anchor. Both boxes are borderline for a tree head, and both fail for any other head (and
    /// for a tree head when the decision was not near 0.5).
    func testTreeHeadClassDecisionNearOneHalfIsBorderline() {
        func treeBox(_ classIndex: Int, score: Float, cell: Int = 9) -> Detection {
            Detection(classIndex: classIndex, score: score, objectness: 0.9, x: 0.5, y: 0.5, width: 0.1, height: 0.1, cell: cell, anchor: 2)
        }
        let shared = [treeBox(1, score: 0.8, cell: 1)]
        let candidate = shared.map { box -> Detection in
            var moved = box
            moved.score += 0.005
            return moved
        }
        func compare(_ reference: [Detection], _ candidate: [Detection], treeHeads: Set<Int>) -> DetectionComparison {
            var settings = BoxComparison.Settings(
                threshold: 0.3, nmsIoU: 0.5, minimumIoU: 0.99, frame: ImageFrame(networkInput: ActivationShape(channels: 3, height: 416, width: 416)))
            settings.classDecisionHeads = treeHeads
            return BoxComparison.compare(reference: DecodedBoxes(boxes: reference), candidate: DecodedBoxes(boxes: candidate), settings: settings)
        }
        let nearHalf = compare(shared + [treeBox(343, score: 0.5004)], candidate + [treeBox(81, score: 0.657)], treeHeads: [0])
        XCTAssertTrue(nearHalf.pass, "\(nearHalf.clearlyUnpaired)")
        XCTAssertEqual(nearHalf.borderlineUnpaired, 2)
        XCTAssertFalse(compare(shared + [treeBox(343, score: 0.5004)], candidate + [treeBox(81, score: 0.657)], treeHeads: []).pass)
        XCTAssertFalse(compare(shared + [treeBox(343, score: 0.6)], candidate + [treeBox(81, score: 0.657)], treeHeads: [0]).pass)
    }

    func testMissingConfidentBoxOrMovedBoxFails() {
        let reference = [box(1, score: 0.9), box(2, score: 0.7, x: 0.1)]
        let missing = compareBoxes(reference, [box(1, score: 0.9)])
        XCTAssertFalse(missing.pass)
        XCTAssertEqual(missing.clearlyUnpaired.map(\.cell), [2])
        let moved = compareBoxes(reference, [box(1, score: 0.9, x: 0.52), box(2, score: 0.7, x: 0.1)])
        XCTAssertFalse(moved.pass)
        XCTAssertLessThan(try XCTUnwrap(moved.smallestIoU), 0.99)
    }

    /// No box above the threshold in either network: no IoU was measured, so none is reported (not 1),
    /// and the sentence says that neither network found a box.
    func testNoBoxInEitherNetworkHasNoIoU() throws {
        let none = compareBoxes([], [])
        XCTAssertTrue(none.pass)
        XCTAssertNil(none.smallestIoU)
        XCTAssertEqual(none.boxesBeforeNMS, 0)
        XCTAssertEqual(none.summary, "boxes agree: neither network produced a box above the threshold 0.3")
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: JSONOutput.encode(none)) as? [String: Any])
        XCTAssertNil(json["smallestIoU"], "no IoU in the JSON")

        // Boxes in one network only, just over the threshold: still no pair, so still no IoU, and the
        // sentence says why.
        let borderline = compareBoxes([box(1, score: 0.30005)], [])
        XCTAssertNil(borderline.smallestIoU)
        XCTAssertTrue(borderline.summary.contains("no box found by both networks"), borderline.summary)
        XCTAssertTrue(borderline.summary.contains("1 borderline"), borderline.summary)

        // One pair: its IoU.
        let one = compareBoxes([box(1, score: 0.9)], [box(1, score: 0.9, x: 0.52)])
        XCTAssertEqual(one.smallestIoU, one.pairs.first?.iou)
        XCTAssertTrue(one.summary.hasPrefix("boxes DISAGREE: smallest IoU 0."), one.summary)
    }

    /// Enough boxes of many classes that NMS is split by class over the cores: the kept boxes and their
    /// order must be exactly those of one NMS over all boxes, and the pairing by identity must hold.
    func testManyBoxesKeepNMSOrderAndPairing() {
        var rng = SplitMix64(seed: 5)
        var reference: [Detection] = []
        for cell in 0..<3000 {
            for classIndex in 0..<(cell % 4 == 0 ? 3 : 1) {
                let score = Float(0.3 + 0.7 * rng.nextUnit())
                reference.append(
                    Detection(
                        classIndex: (cell * 7 + classIndex) % 23, score: classIndex == 2 ? 0.5 : score, objectness: score,
                        x: Float(rng.nextUnit()), y: Float(rng.nextUnit()), width: Float(rng.nextUnit() * 0.3),
                        height: Float(rng.nextUnit() * 0.3), head: cell % 3, cell: cell, anchor: classIndex))
            }
        }
        let candidate = reference.reversed().map { box -> Detection in
            var moved = box
            moved.score += 1e-6
            return moved
        }
        let c = compareBoxes(reference, candidate, nmsIoU: 0.45)
        XCTAssertGreaterThan(reference.count, 4096)
        // Boxes are clipped to the input before NMS.
        let clipped = reference.map(ImageFrame(networkInput: ActivationShape(channels: 3, height: 1 << 20, width: 1 << 20)).clip)
        XCTAssertEqual(c.pairs.map(\.reference), DetectionDecoder.nonMaxSuppression(clipped, iouThreshold: 0.45))
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
        let raw = compareBoxes([thin], [nudged])
        XCTAssertFalse(raw.pass, "without a resolution floor the sub-pixel shift fails")
        let resolved = compareBoxes([thin], [nudged], inputSize: 416)
        XCTAssertTrue(resolved.pass)
        var moved = thin; moved.y += 1.0 / 416
        XCTAssertFalse(compareBoxes([thin], [moved], inputSize: 416).pass)
    }
}

final class BoxOverflowTests: XCTestCase {
    typealias S = RuntimeTestSupport

    /// One [yolo] cell whose tw is 100: exp(100) overflows float32, so the folded box is infinitely wide.
    /// The box is not compared (no mismatch): it is counted, and the hazard names layer, channel, value.
    func testInfiniteBoxIsAnOverflowHazardNotAMismatch() throws {
        let head = DetectionHead(kind: .yolo, classes: 2, anchors: [10, 14, 23, 27], mask: [0, 1])
        let shape = ActivationShape(channels: 14, height: 2, width: 2)
        let network = try S.single(.detection(head), input: shape)
        var reference = [Float](repeating: -10, count: shape.count)
        let plane = 4, cell = 1
        reference[7 * plane + cell + 4 * plane] = 5  // anchor slot 1: objectness (channel 11)
        reference[7 * plane + cell + 5 * plane] = 5  // class 0 (channel 12)
        reference[7 * plane + cell + 2 * plane] = 0.5  // tw (channel 9)
        var folded = reference
        folded[7 * plane + cell + 2 * plane] = 100
        let referenceBoxes = DetectionDecoder.decodeHeads(network: network, outputs: [reference], threshold: 0.3, networkName: "reference")
        let foldedBoxes = DetectionDecoder.decodeHeads(network: network, outputs: [folded], threshold: 0.3, networkName: "candidate")
        XCTAssertEqual(foldedBoxes.boxes.count, 1)
        XCTAssertEqual(foldedBoxes.boxes.first?.width, .infinity)
        XCTAssertEqual(foldedBoxes.overflows, [BoxOverflowHazard(network: "candidate", layer: 0, channel: 9, value: 100, boxes: 1)])
        XCTAssertEqual(referenceBoxes.overflows, [])
        let c = BoxComparison.compare(
            reference: referenceBoxes, candidate: foldedBoxes,
            settings: .init(threshold: 0.3, nmsIoU: 0.5, minimumIoU: 0.99, frame: ImageFrame(networkInput: shape)))
        XCTAssertTrue(c.pass)
        XCTAssertEqual(c.nonFiniteBoxes, 1)
        XCTAssertEqual(c.clearlyUnpaired, [])
        XCTAssertEqual(c.overflowHazards.map(\.channel), [9])
        // Listed: the reference box, and its counterpart clipped to the frame (drawable).
        XCTAssertEqual(c.pairs.first?.candidate?.width, 1)
    }

    /// A NaN tx makes a NaN box: a hazard as well, never listed.
    func testNaNBoxIsAHazardAndNotListed() {
        let nanBox = Detection(classIndex: 0, score: 0.9, objectness: 0.9, x: .nan, y: 0.5, width: 0.1, height: 0.1, cell: 3)
        let c = compareBoxes([nanBox], [nanBox])
        XCTAssertTrue(c.pass)
        XCTAssertEqual(c.nonFiniteBoxes, 1)
        XCTAssertEqual(c.pairs, [])
        var finite = nanBox
        finite.x = 0.5
        XCTAssertEqual(compareBoxes([finite], [finite]).nonFiniteBoxes, 0)
        // Only the folded box is NaN: the original's is listed, its counterpart is not drawn.
        let oneSided = compareBoxes([finite], [nanBox])
        XCTAssertTrue(oneSided.pass)
        XCTAssertEqual(oneSided.nonFiniteBoxes, 1)
        XCTAssertEqual(oneSided.referenceDetections.count, 1)
        XCTAssertEqual(oneSided.candidateDetections, [])
    }
}

final class SaturationTests: XCTestCase {
    /// A synthetic saturated head: 12 000 boxes, nine in ten scoring 1.0, against a folded network whose
    /// boxes moved: the comparison fails but does not count in the verdict, and NMS keeps at most
    /// `saturatedNMSCandidatesPerClass` boxes per class (the cap that bounds the box phase; its time on
    /// 300 000 candidates: Docs/Performance.md, "Timings measured outside the tests"); a detector with as
    /// many boxes of moderate score is not called saturated.
    func testSaturatedHeadIsNamedAndNotCounted() {
        var reference: [Detection] = [], moved: [Detection] = []
        var rng = SplitMix64(seed: 3)
        for cell in 0..<12_000 {
            let score: Float = cell % 10 == 0 ? 0.5 : 1
            let box = Detection(
                classIndex: cell % 80, score: score, objectness: score, x: Float(rng.nextUnit()), y: Float(rng.nextUnit()),
                width: 0.05, height: 0.05, cell: cell)
            reference.append(box)
            var shifted = box
            shifted.x += 0.01
            moved.append(shifted)
        }
        let c = compareBoxes(reference, moved, inputSize: 416)
        XCTAssertTrue(c.saturation.saturated)
        XCTAssertEqual(c.saturation.scoringNearOne, 10_800)
        XCTAssertFalse(c.pass)
        XCTAssertFalse(c.countsInVerdict)
        XCTAssertTrue(c.acceptable)
        XCTAssertLessThanOrEqual(c.pairs.count, 80 * BoxComparison.saturatedNMSCandidatesPerClass)
        let moderate = reference.map { box -> Detection in
            var b = box; b.score = 0.6; return b
        }
        let trained = compareBoxes(
            moderate,
            moderate.map {
                var b = $0; b.x += 0.01; return b
            }, inputSize: 416)
        XCTAssertFalse(trained.saturation.saturated)
        XCTAssertFalse(trained.acceptable)
    }
}
