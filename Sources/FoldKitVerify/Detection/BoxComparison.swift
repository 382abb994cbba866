import FoldKitCore
import FoldKitDetection

/// Compares the boxes of the original network with the folded network's, as consumers use them.
///
/// 1. Every box is clipped to the image (`ImageFrame`: after the letterbox is undone; the network input
///    when there is no image). A box with a non-finite centre or side before clipping (an overflowing
///    float32 `exp`, a NaN) is not compared: it is counted, and the head channel that made it is reported
///    as a `BoxOverflowHazard`.
/// 2. Boxes are paired by identity before NMS: the same head, grid cell, anchor and class. Every pair's
///    IoU must be >= `minimumIoU`. IoU is measured at the resolution of the network input: a side
///    shorter than one input pixel counts as that long, so sub-pixel boxes, which random weights
///    produce, do not turn rounding-level shifts into large IoU changes.
/// 3. A box found by only one network fails the comparison unless it is borderline: its score lies
///    within `borderline` of the threshold, where
///
///        borderline = max(1e-4, 4 x the largest score difference among paired boxes)
///
///    (the other network's score for it is then just under the threshold), or when an allowed deviation
///    of the head's input could make or lose it (`BoxDecisionReach`: the threshold lies within what the
///    layer's allowance moves its objectness and class probability by). A head with a class tree
///    (YOLO9000) picks a box's one class where a probability crosses 0.5 (`ClassTree`): at a head, cell
///    and anchor where a box found by one network only scores within `borderline` of 0.5 (or within its
///    reach), that decision
///    is borderline, and every box found by one network only there is too (the other network picked
///    another class).
/// 4. Saturation: when the original has at least `saturatedCandidates` boxes above the threshold and at
///    least half of them score >= `nearOne`, the network does not behave like a trained detector; the
///    comparison is still reported but does not count in the verdict.
/// 5. Per-class greedy NMS (`GreedyNMS`) of the original's boxes, at most `nmsCandidatesPerClass` of each
///    class (the highest scoring, as OpenCV's top_k; `saturatedNMSCandidatesPerClass` for a saturated
///    network, whose list says nothing), picks the boxes listed for people; the folded
///    network's listed boxes are their counterparts plus folded-only boxes clearly above the threshold.
///    Which box NMS keeps among near-equal scores is not judged.
enum BoxComparison {
    /// A score at least this is "nearly 1" for the saturation test.
    static let nearOne: Float = 0.99
    /// Fewer boxes than this above the threshold are never called saturated.
    static let saturatedCandidates = 10_000
    /// NMS candidates per class for a saturated network.
    static let saturatedNMSCandidatesPerClass = 100

    struct Settings: Sendable {
        var threshold: Float
        var nmsIoU: Float
        var minimumIoU: Float
        var frame: ImageFrame
        var classNames: [String]?
        var nmsCandidatesPerClass: Int
        /// The heads (`Detection.head`) that pick one class per box where a probability crosses 0.5
        /// (heads with a class tree).
        var classDecisionHeads: Set<Int> = []
        /// Per head (`Detection.head`), how far the verdict's allowance on its input moves the values that
        /// decide a box (`BoxDecisionReach`); a head without one is judged by the score window alone.
        var reach: [Int: BoxDecisionReach] = [:]

        init(
            threshold: Float, nmsIoU: Float, minimumIoU: Float, frame: ImageFrame, classNames: [String]? = nil,
            nmsCandidatesPerClass: Int = 1000
        ) {
            self.threshold = threshold
            self.nmsIoU = nmsIoU
            self.minimumIoU = minimumIoU
            self.frame = frame
            self.classNames = classNames
            self.nmsCandidatesPerClass = nmsCandidatesPerClass
        }
    }

    /// Compares the decoded boxes of both networks (see the type's rule).
    static func compare(reference: DecodedBoxes, candidate: DecodedBoxes, settings: Settings) -> DetectionComparison {
        let frame = settings.frame
        let referenceBoxes = reference.boxes.map(frame.clip), candidateBoxes = candidate.boxes.map(frame.clip)
        let onePixel = (width: 1 / Float(frame.networkWidth), height: 1 / Float(frame.networkHeight))
        func pairIoU(_ a: Detection, _ b: Detection) -> Float { atLeast(onePixel, a).iou(atLeast(onePixel, b)) }

        // Steps 2 and 3: pairing before NMS.
        let tally = PairTally(
            reference: reference.boxes, candidate: candidate.boxes, clippedReference: referenceBoxes,
            clippedCandidate: candidateBoxes, pairIoU: pairIoU)
        let borderline = max(1e-4, 4 * tally.largestScoreDifference)
        // Head, cell and anchor of the tree heads' class decisions that lie within `borderline` of 0.5.
        let unpaired = tally.referenceOnly + tally.candidateOnly
        func withinReach(_ box: Detection) -> Bool { settings.reach[box.head]?.reaches(box, threshold: settings.threshold) ?? false }
        let borderlineDecisions = Set(
            unpaired.filter {
                settings.classDecisionHeads.contains($0.head) && (abs($0.score - ClassTree.decisionProbability) <= borderline || withinReach($0))
            }
            .map { [$0.head, $0.cell, $0.anchor] })
        func isClear(_ box: Detection) -> Bool {
            box.score - settings.threshold > borderline && !borderlineDecisions.contains([box.head, box.cell, box.anchor]) && !withinReach(box)
        }
        let clearly = unpaired.filter(isClear)
        // Step 4.
        let saturation = measureSaturation(referenceBoxes)
        // Step 5: the final boxes.
        let perClass = saturation.saturated ? min(settings.nmsCandidatesPerClass, saturatedNMSCandidatesPerClass) : settings.nmsCandidatesPerClass
        let pairs = nonMaxSuppression(referenceBoxes, iouThreshold: settings.nmsIoU, perClass: perClass).map { i -> DetectionComparison.Pair in
            let box = referenceBoxes[i]
            guard let j = tally.counterpart(ofReference: i) else { return .init(reference: box, candidate: nil, iou: 0, scoreDifference: box.score) }
            let other = candidateBoxes[j]
            return .init(reference: box, candidate: other, iou: pairIoU(box, other), scoreDifference: abs(box.score - other.score))
        }
        let unpairedCandidates = tally.candidateOnly.filter(isClear)
        // Drawable final boxes: a NaN counterpart has no place in the image.
        let candidateFinal = (pairs.compactMap(\.candidate) + unpairedCandidates).filter(\.hasFiniteGeometry)
        return DetectionComparison(
            threshold: settings.threshold, nmsIoU: settings.nmsIoU, minimumIoU: settings.minimumIoU,
            nmsCandidatesPerClass: perClass, frame: frame,
            referenceCount: pairs.count, candidateCount: candidateFinal.count, pairs: pairs, unpairedCandidates: unpairedCandidates,
            referenceDetections: pairs.map { PixelDetection($0.reference, frame: frame, classNames: settings.classNames) },
            candidateDetections: candidateFinal.map { PixelDetection($0, frame: frame, classNames: settings.classNames) },
            pairedBeforeNMS: tally.paired, borderline: borderline,
            borderlineUnpaired: tally.referenceOnly.count + tally.candidateOnly.count - clearly.count,
            clearlyUnpaired: clearly, nonFiniteBoxes: tally.nonFinite, overflowHazards: candidate.overflows + reference.overflows,
            saturation: saturation, smallestIoU: tally.smallestIoU, largestScoreDifference: tally.largestScoreDifference,
            pass: clearly.isEmpty && (tally.smallestIoU.map { $0 >= settings.minimumIoU } ?? true), countsInVerdict: !saturation.saturated)
    }

    /// Both networks' boxes before NMS paired by identity (`BoxIdentityIndex`: one sort of each side's
    /// keys and one merge, no hashing, for hundreds of thousands of boxes; a duplicated key pairs with
    /// its first box). A pair or unpaired box with a non-finite box (before clipping) is only counted.
    private struct PairTally {
        private let referenceMatch: [Int]
        var paired = 0, nonFinite = 0
        /// nil until a pair is compared.
        var smallestIoU: Float?, largestScoreDifference: Float = 0
        /// Finite (clipped) boxes found by one network only.
        var referenceOnly: [Detection] = [], candidateOnly: [Detection] = []

        init(
            reference: [Detection], candidate: [Detection], clippedReference: [Detection], clippedCandidate: [Detection],
            pairIoU: (Detection, Detection) -> Float
        ) {
            let referenceIndex = BoxIdentityIndex(clippedReference), candidateIndex = BoxIdentityIndex(clippedCandidate)
            referenceMatch = referenceIndex.firstMatches(in: candidateIndex)
            let candidateMatch = candidateIndex.firstMatches(in: referenceIndex)
            for (i, box) in clippedReference.enumerated() {
                let j = referenceMatch[i]
                if !reference[i].hasFiniteGeometry || (j >= 0 && !candidate[j].hasFiniteGeometry) {
                    nonFinite += 1
                } else if j >= 0 {
                    paired += 1
                    smallestIoU = min(smallestIoU ?? 1, pairIoU(box, clippedCandidate[j]))
                    largestScoreDifference = max(largestScoreDifference, abs(box.score - clippedCandidate[j].score))
                } else {
                    referenceOnly.append(box)
                }
            }
            for (j, box) in clippedCandidate.enumerated() where candidateMatch[j] < 0 {
                if candidate[j].hasFiniteGeometry { candidateOnly.append(box) } else { nonFinite += 1 }
            }
        }

        /// The index of the candidate box with the same identity as reference box `i`.
        func counterpart(ofReference i: Int) -> Int? { referenceMatch[i] >= 0 ? referenceMatch[i] : nil }
    }

    /// The saturation test of the type's rule, on the original's boxes before NMS.
    static func measureSaturation(_ boxes: [Detection]) -> DetectionComparison.Saturation {
        let nearOneCount = boxes.reduce(0) { $0 + ($1.score >= nearOne ? 1 : 0) }
        return .init(
            candidates: boxes.count, scoringNearOne: nearOneCount,
            saturated: boxes.count >= saturatedCandidates && 2 * nearOneCount >= boxes.count)
    }

    /// Indices of the boxes NMS keeps, in descending score order: NMS over the drawable boxes (finite after
    /// clipping), at most `perClass` of each class, the first in NMS order.
    static func nonMaxSuppression(_ boxes: [Detection], iouThreshold: Float, perClass: Int) -> [Int] {
        var taken: [Int: Int] = [:]
        var considered: [Int] = []
        for i in GreedyNMS.sortedOrder(boxes) where boxes[i].hasFiniteGeometry {
            let seen = taken[boxes[i].classIndex, default: 0]
            guard seen < perClass else { continue }
            taken[boxes[i].classIndex] = seen + 1
            considered.append(i)
        }
        return GreedyNMS.keptIndices(considered.map { boxes[$0] }, iouThreshold: iouThreshold).map { considered[$0] }
    }

    /// `box` with each side at least the given length (same centre).
    private static func atLeast(_ side: (width: Float, height: Float), _ box: Detection) -> Detection {
        var resolved = box
        resolved.width = max(box.width, side.width)
        resolved.height = max(box.height, side.height)
        return resolved
    }
}
