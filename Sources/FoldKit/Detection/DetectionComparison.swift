import Dispatch
import Foundation

/// Compares the boxes of the original network with the folded network's.
///
/// Boxes are paired by identity before NMS: the same head, grid cell, anchor and class. Every pair's
/// IoU must be >= `minimumIoU`. IoU is measured at the resolution of the network input: a side shorter
/// than `minimumSide` (one input pixel, as a fraction of the input) counts as that long, so sub-pixel
/// boxes, which random weights produce, do not turn rounding-level shifts into large IoU changes. A box found by only one network fails the comparison unless it is
/// borderline: its score lies within `borderline` of the threshold, where
///
///     borderline = max(1e-4, 4 x the largest score difference among paired boxes)
///
/// (the other network's score for it is then just under the threshold; with random weights many boxes
/// sit there). After NMS the kept boxes are listed for people; which one NMS keeps among near-equal
/// scores is not judged.
public struct DetectionComparison: Codable, Equatable, Sendable {
    public struct Pair: Codable, Equatable, Sendable {
        public var reference: Detection
        public var candidate: Detection?
        /// 0 when unpaired.
        public var iou: Float
        /// |candidate score - reference score|
        public var scoreDifference: Float
    }

    public var threshold: Float
    public var nmsIoU: Float
    public var minimumIoU: Float
    /// The original's boxes after NMS.
    public var referenceCount: Int
    /// The folded network's counterparts of those boxes, plus folded-only boxes clearly above the threshold.
    public var candidateCount: Int
    /// The original network's boxes after NMS, each with its folded counterpart (same head, cell, anchor, class).
    public var pairs: [Pair]
    /// Folded boxes clearly above the threshold with no original counterpart.
    public var unpairedCandidates: [Detection]
    /// Boxes before NMS paired by identity.
    public var pairedBeforeNMS: Int
    public var borderline: Float
    /// Boxes found by only one network whose score is within `borderline` of the threshold.
    public var borderlineUnpaired: Int
    /// Boxes found by only one network with a score clearly above the threshold.
    public var clearlyUnpaired: [Detection]
    public var smallestIoU: Float
    public var largestScoreDifference: Float
    public var pass: Bool

    public init(referenceCandidates: [Detection], candidateCandidates: [Detection], threshold: Float, nmsIoU: Float, minimumIoU: Float,
                minimumSide: (width: Float, height: Float) = (0, 0)) {
        func resolved(_ d: Detection) -> Detection {
            var r = d
            r.width = max(d.width, minimumSide.width)
            r.height = max(d.height, minimumSide.height)
            return r
        }
        func pairIoU(_ a: Detection, _ b: Detection) -> Float { resolved(a).iou(resolved(b)) }
        // Pairing by identity through one sort of each side's keys and one merge of the two sorted lists
        // (no hashing: hundreds of thousands of boxes with random weights). A duplicated key pairs with its
        // first box, as a dictionary built first-wins would.
        let candidateIndex = BoxIdentityIndex(candidateCandidates)
        let referenceIndex = BoxIdentityIndex(referenceCandidates)
        let referenceMatch = referenceIndex.firstMatches(in: candidateIndex)
        let candidateMatch = candidateIndex.firstMatches(in: referenceIndex)
        var smallestIoU: Float = 1, largestDifference: Float = 0, paired = 0
        var onlyOne: [Detection] = []
        for (i, box) in referenceCandidates.enumerated() {
            if referenceMatch[i] >= 0 {
                let other = candidateCandidates[referenceMatch[i]]
                paired += 1
                smallestIoU = min(smallestIoU, pairIoU(box, other))
                largestDifference = max(largestDifference, abs(box.score - other.score))
            } else {
                onlyOne.append(box)
            }
        }
        let referenceOnlyCount = onlyOne.count
        for (j, box) in candidateCandidates.enumerated() where candidateMatch[j] < 0 { onlyOne.append(box) }
        let borderline = max(1e-4, 4 * largestDifference)
        func isClear(_ box: Detection) -> Bool { box.score - threshold > borderline }
        let clearly = onlyOne.filter(isClear)

        // NMS runs on the original's boxes; the folded network's kept boxes are their counterparts plus
        // any folded-only box clearly above the threshold (NMS of the folded boxes would differ only in
        // borderline choices, which are not judged).
        let referenceKept = GreedyNMS.keptIndices(referenceCandidates, iouThreshold: nmsIoU)
        pairs = referenceKept.map { i in
            let box = referenceCandidates[i]
            guard referenceMatch[i] >= 0 else {
                return Pair(reference: box, candidate: nil, iou: 0, scoreDifference: box.score)
            }
            let other = candidateCandidates[referenceMatch[i]]
            return Pair(reference: box, candidate: other, iou: pairIoU(box, other), scoreDifference: abs(box.score - other.score))
        }
        // The clearly-above boxes without an original counterpart are the folded-only ones.
        unpairedCandidates = onlyOne[referenceOnlyCount...].filter(isClear)
        self.threshold = threshold
        self.nmsIoU = nmsIoU
        self.minimumIoU = minimumIoU
        referenceCount = referenceKept.count
        candidateCount = pairs.filter { $0.candidate != nil }.count + unpairedCandidates.count
        pairedBeforeNMS = paired
        self.borderline = borderline
        borderlineUnpaired = onlyOne.count - clearly.count
        clearlyUnpaired = clearly
        self.smallestIoU = smallestIoU
        largestScoreDifference = largestDifference
        pass = clearly.isEmpty && smallestIoU >= minimumIoU
    }
}

/// Boxes looked up by identity (head, cell, anchor, class): the keys sorted once, then binary search.
struct BoxIdentityIndex {
    struct Key: Comparable {
        var head, cell, anchor, classIndex: Int
        init(_ d: Detection) { (head, cell, anchor, classIndex) = (d.head, d.cell, d.anchor, d.classIndex) }
        static func < (a: Key, b: Key) -> Bool { (a.head, a.cell, a.anchor, a.classIndex) < (b.head, b.cell, b.anchor, b.classIndex) }
    }

    /// (key, index into the boxes), sorted by key then index.
    private let entries: [(key: Key, index: Int)]

    init(_ boxes: [Detection]) {
        entries = boxes.enumerated().map { (Key($1), $0) }.sorted { $0.key != $1.key ? $0.key < $1.key : $0.index < $1.index }
    }

    /// For each of this index's boxes (in their original order), the index of the first box of `other`
    /// (in its original order) with the same identity, -1 when there is none. One merge of the two sorted
    /// lists.
    func firstMatches(in other: BoxIdentityIndex) -> [Int] {
        var result = [Int](repeating: -1, count: entries.count)
        var j = 0
        for entry in entries {
            while j < other.entries.count && other.entries[j].key < entry.key { j += 1 }
            if j < other.entries.count && other.entries[j].key == entry.key { result[entry.index] = other.entries[j].index }
        }
        return result
    }
}
