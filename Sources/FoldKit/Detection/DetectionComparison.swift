/// Compares the boxes of the original network with the folded network's.
///
/// Boxes are paired greedily: for each reference box in descending score, the unpaired candidate box of
/// the same class with the highest IoU. The comparison passes when both found the same number of
/// boxes and every pair overlaps with IoU >= `minimumIoU`.
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
    public var referenceCount: Int
    public var candidateCount: Int
    public var pairs: [Pair]
    /// Candidate boxes that no reference box paired with.
    public var unpairedCandidates: [Detection]
    public var smallestIoU: Float
    public var largestScoreDifference: Float
    public var pass: Bool

    public init(reference: [Detection], candidate: [Detection], threshold: Float, nmsIoU: Float, minimumIoU: Float) {
        var remaining = candidate
        var pairs: [Pair] = []
        for box in reference.sorted(by: { $0.score > $1.score }) {
            var best: Int?
            var bestIoU: Float = 0
            for (i, other) in remaining.enumerated() where other.classIndex == box.classIndex {
                let overlap = box.iou(other)
                if overlap > bestIoU { bestIoU = overlap; best = i }
            }
            if let best {
                let other = remaining.remove(at: best)
                pairs.append(Pair(reference: box, candidate: other, iou: bestIoU, scoreDifference: abs(other.score - box.score)))
            } else {
                pairs.append(Pair(reference: box, candidate: nil, iou: 0, scoreDifference: box.score))
            }
        }
        self.threshold = threshold
        self.nmsIoU = nmsIoU
        self.minimumIoU = minimumIoU
        self.referenceCount = reference.count
        self.candidateCount = candidate.count
        self.pairs = pairs
        self.unpairedCandidates = remaining
        self.smallestIoU = pairs.map(\.iou).min() ?? 1
        self.largestScoreDifference = (pairs.map(\.scoreDifference) + remaining.map(\.score)).max() ?? 0
        self.pass = reference.count == candidate.count && remaining.isEmpty && pairs.allSatisfy { $0.iou >= minimumIoU }
    }
}
