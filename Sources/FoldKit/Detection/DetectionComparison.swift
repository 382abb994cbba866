/// Compares the boxes of the original network with the folded network's.
///
/// Boxes are paired by identity before NMS: the same head, grid cell, anchor and class. Every pair's
/// IoU must be >= `minimumIoU`. A box found by only one network fails the comparison unless it is
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

    public init(referenceCandidates: [Detection], candidateCandidates: [Detection], threshold: Float, nmsIoU: Float, minimumIoU: Float) {
        struct Key: Hashable { var head, cell, anchor, classIndex: Int }
        func key(_ d: Detection) -> Key { Key(head: d.head, cell: d.cell, anchor: d.anchor, classIndex: d.classIndex) }
        let candidateByKey = Dictionary(candidateCandidates.map { (key($0), $0) }, uniquingKeysWith: { a, _ in a })
        let referenceKeys = Set(referenceCandidates.map(key))
        var smallestIoU: Float = 1, largestDifference: Float = 0, paired = 0
        var onlyOne: [Detection] = []
        for box in referenceCandidates {
            if let other = candidateByKey[key(box)] {
                paired += 1
                smallestIoU = min(smallestIoU, box.iou(other))
                largestDifference = max(largestDifference, abs(box.score - other.score))
            } else {
                onlyOne.append(box)
            }
        }
        onlyOne += candidateCandidates.filter { !referenceKeys.contains(key($0)) }
        let borderline = max(1e-4, 4 * largestDifference)
        let clearly = onlyOne.filter { $0.score - threshold > borderline }

        // NMS runs on the original's boxes; the folded network's kept boxes are their counterparts plus
        // any folded-only box clearly above the threshold (NMS of the folded boxes would differ only in
        // borderline choices, which are not judged).
        let referenceKept = DetectionDecoder.nonMaxSuppression(referenceCandidates, iouThreshold: nmsIoU)
        pairs = referenceKept.map { box in
            guard let other = candidateByKey[key(box)] else {
                return Pair(reference: box, candidate: nil, iou: 0, scoreDifference: box.score)
            }
            return Pair(reference: box, candidate: other, iou: box.iou(other), scoreDifference: abs(box.score - other.score))
        }
        unpairedCandidates = clearly.filter { !referenceKeys.contains(key($0)) }
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
