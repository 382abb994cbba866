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
///    (the other network's score for it is then just under the threshold).
/// 4. Saturation: when the original has at least `saturatedCandidates` boxes above the threshold and at
///    least half of them score >= `nearOne`, the network does not behave like a trained detector; the
///    comparison is still reported but does not count in the verdict.
/// 5. Per-class greedy NMS (`GreedyNMS`) of the original's boxes, at most `nmsCandidatesPerClass` of each
///    class (the highest scoring, as OpenCV's top_k; `saturatedNMSCandidatesPerClass` for a saturated
///    network, whose list says nothing), picks the boxes listed for people; the folded
///    network's listed boxes are their counterparts plus folded-only boxes clearly above the threshold.
///    Which box NMS keeps among near-equal scores is not judged.
public enum BoxComparison {
    /// A score at least this is "nearly 1" for the saturation test.
    public static let nearOne: Float = 0.99
    /// Fewer boxes than this above the threshold are never called saturated.
    public static let saturatedCandidates = 10_000
    /// NMS candidates per class for a saturated network.
    public static let saturatedNMSCandidatesPerClass = 100

    public struct Settings: Sendable {
        public var threshold: Float
        public var nmsIoU: Float
        public var minimumIoU: Float
        public var frame: ImageFrame
        public var classNames: [String]?
        public var nmsCandidatesPerClass: Int

        public init(threshold: Float, nmsIoU: Float, minimumIoU: Float, frame: ImageFrame, classNames: [String]? = nil,
                    nmsCandidatesPerClass: Int = 1000) {
            self.threshold = threshold
            self.nmsIoU = nmsIoU
            self.minimumIoU = minimumIoU
            self.frame = frame
            self.classNames = classNames
            self.nmsCandidatesPerClass = nmsCandidatesPerClass
        }
    }

    /// Compares the decoded boxes of both networks (see the type's rule).
    public static func compare(reference: DecodedBoxes, candidate: DecodedBoxes, settings: Settings) -> DetectionComparison {
        let frame = settings.frame
        let referenceBoxes = reference.boxes.map(frame.clip), candidateBoxes = candidate.boxes.map(frame.clip)
        let referenceFinite = reference.boxes.map(\.hasFiniteGeometry), candidateFinite = candidate.boxes.map(\.hasFiniteGeometry)
        let onePixel = (width: 1 / Float(frame.networkWidth), height: 1 / Float(frame.networkHeight))
        func pairIoU(_ a: Detection, _ b: Detection) -> Float { atLeast(onePixel, a).iou(atLeast(onePixel, b)) }

        // Pairing by identity: one sort of each side's keys and one merge (no hashing: hundreds of
        // thousands of boxes with random weights). A duplicated key pairs with its first box.
        let referenceIndex = BoxIdentityIndex(referenceBoxes), candidateIndex = BoxIdentityIndex(candidateBoxes)
        let referenceMatch = referenceIndex.firstMatches(in: candidateIndex)
        let candidateMatch = candidateIndex.firstMatches(in: referenceIndex)
        var smallestIoU: Float = 1, largestDifference: Float = 0, paired = 0, nonFinite = 0
        var referenceOnly: [Detection] = [], candidateOnly: [Detection] = []
        for (i, box) in referenceBoxes.enumerated() {
            let j = referenceMatch[i]
            if !referenceFinite[i] || (j >= 0 && !candidateFinite[j]) {
                nonFinite += 1
            } else if j >= 0 {
                paired += 1
                smallestIoU = min(smallestIoU, pairIoU(box, candidateBoxes[j]))
                largestDifference = max(largestDifference, abs(box.score - candidateBoxes[j].score))
            } else {
                referenceOnly.append(box)
            }
        }
        for (j, box) in candidateBoxes.enumerated() where candidateMatch[j] < 0 {
            if candidateFinite[j] { candidateOnly.append(box) } else { nonFinite += 1 }
        }
        let borderline = max(1e-4, 4 * largestDifference)
        func isClear(_ box: Detection) -> Bool { box.score - settings.threshold > borderline }
        let clearly = (referenceOnly + candidateOnly).filter(isClear)
        let saturation = measureSaturation(referenceBoxes)

        let perClass = saturation.saturated ? min(settings.nmsCandidatesPerClass, saturatedNMSCandidatesPerClass) : settings.nmsCandidatesPerClass
        let referenceKept = nonMaxSuppression(referenceBoxes, iouThreshold: settings.nmsIoU, perClass: perClass)
        let pairs = referenceKept.map { i -> DetectionComparison.Pair in
            let box = referenceBoxes[i]
            guard referenceMatch[i] >= 0 else { return .init(reference: box, candidate: nil, iou: 0, scoreDifference: box.score) }
            let other = candidateBoxes[referenceMatch[i]]
            return .init(reference: box, candidate: other, iou: pairIoU(box, other), scoreDifference: abs(box.score - other.score))
        }
        let unpairedCandidates = candidateOnly.filter(isClear)
        // Drawable final boxes: a NaN counterpart has no place in the image.
        let candidateFinal = (pairs.compactMap(\.candidate) + unpairedCandidates).filter(\.hasFiniteGeometry)
        let pass = clearly.isEmpty && smallestIoU >= settings.minimumIoU
        return DetectionComparison(
            threshold: settings.threshold, nmsIoU: settings.nmsIoU, minimumIoU: settings.minimumIoU,
            nmsCandidatesPerClass: perClass, frame: frame,
            referenceCount: pairs.count, candidateCount: candidateFinal.count, pairs: pairs, unpairedCandidates: unpairedCandidates,
            referenceDetections: pairs.map { PixelDetection($0.reference, frame: frame, classNames: settings.classNames) },
            candidateDetections: candidateFinal.map { PixelDetection($0, frame: frame, classNames: settings.classNames) },
            pairedBeforeNMS: paired, borderline: borderline, borderlineUnpaired: referenceOnly.count + candidateOnly.count - clearly.count,
            clearlyUnpaired: clearly, nonFiniteBoxes: nonFinite, overflowHazards: candidate.overflows + reference.overflows,
            saturation: saturation, smallestIoU: smallestIoU, largestScoreDifference: largestDifference,
            pass: pass, countsInVerdict: !saturation.saturated)
    }

    /// The saturation test of the type's rule, on the original's boxes before NMS.
    public static func measureSaturation(_ boxes: [Detection]) -> DetectionComparison.Saturation {
        let nearOneCount = boxes.reduce(0) { $0 + ($1.score >= nearOne ? 1 : 0) }
        return .init(candidates: boxes.count, scoringNearOne: nearOneCount,
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
