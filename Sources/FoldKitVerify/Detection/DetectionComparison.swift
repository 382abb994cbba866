import FoldKitDetection

/// The boxes of the original network against the folded network's, as `BoxComparison.compare` finds
/// them (the rule is written there and in Docs/Verify.md). Boxes are in normalised network-input
/// coordinates, clipped to the image; `referenceDetections` and `candidateDetections` are the same final
/// boxes in image pixels.
public struct DetectionComparison: Codable, Equatable, Sendable {
    /// One original box and its folded counterpart (nil when there is none).
    public struct Pair: Codable, Equatable, Sendable {
        /// The original network's box.
        public var reference: Detection
        /// The folded network's box from the same head, cell, anchor and class.
        public var candidate: Detection?
        /// 0 when unpaired.
        public var iou: Float
        /// |candidate score - reference score|
        public var scoreDifference: Float

        /// A pair with its IoU and score difference.
        public init(reference: Detection, candidate: Detection?, iou: Float, scoreDifference: Float) {
            self.reference = reference
            self.candidate = candidate
            self.iou = iou
            self.scoreDifference = scoreDifference
        }
    }

    /// How many of the original's boxes before NMS score nearly 1 (a sign of untrained weights).
    public struct Saturation: Codable, Equatable, Sendable {
        /// The original's boxes above the threshold, before NMS.
        public var candidates: Int
        /// Those scoring at least `BoxComparison.nearOne`.
        public var scoringNearOne: Int
        /// `candidates >= BoxComparison.saturatedCandidates` and at least half of them score nearly 1:
        /// the network does not behave like a trained detector.
        public var saturated: Bool

        /// Counts of the original's boxes before NMS.
        public init(candidates: Int, scoringNearOne: Int, saturated: Bool) {
            self.candidates = candidates
            self.scoringNearOne = scoringNearOne
            self.saturated = saturated
        }
    }

    /// The score threshold.
    public var threshold: Float
    /// The per-class NMS IoU threshold.
    public var nmsIoU: Float
    /// The smallest IoU a pair may have and pass.
    public var minimumIoU: Float
    /// NMS considers at most this many boxes of each class, the highest scoring (OpenCV's top_k).
    public var nmsCandidatesPerClass: Int
    /// The image the boxes are clipped to and measured in.
    public var frame: ImageFrame
    /// The original's boxes after NMS.
    public var referenceCount: Int
    /// The folded network's counterparts of those boxes, plus folded-only boxes clearly above the threshold.
    public var candidateCount: Int
    /// The original network's boxes after NMS, each with its folded counterpart (same head, cell, anchor, class).
    public var pairs: [Pair]
    /// Folded boxes clearly above the threshold with no original counterpart.
    public var unpairedCandidates: [Detection]
    /// The original's final boxes in image pixels (the `pairs`' reference boxes).
    public var referenceDetections: [PixelDetection]
    /// The folded network's final boxes in image pixels (the paired counterparts, then `unpairedCandidates`;
    /// those with a NaN coordinate left out).
    public var candidateDetections: [PixelDetection]
    /// Boxes before NMS paired by identity.
    public var pairedBeforeNMS: Int
    /// How close to the threshold a score counts as borderline.
    public var borderline: Float
    /// Boxes found by only one network whose score is within `borderline` of the threshold, or within the
    /// reach of the head's allowance (`BoxDecisionReach`).
    public var borderlineUnpaired: Int
    /// Boxes found by only one network with a score clearly above the threshold.
    public var clearlyUnpaired: [Detection]
    /// Boxes (either network, before NMS) with a non-finite centre or side: not compared, see `overflowHazards`.
    public var nonFiniteBoxes: Int
    /// The head channels that made those boxes non-finite.
    public var overflowHazards: [BoxOverflowHazard]
    /// Whether the original scores like an untrained detector.
    public var saturation: Saturation
    /// The smallest IoU among compared pairs; nil when no pair was compared (neither network found a box
    /// above the threshold, or no box was found by both), where no IoU was measured at all.
    public var smallestIoU: Float?
    /// The smallest IoU between the reference's boxes and the control's (the original network in the
    /// precision compared: float32, or float16 storage with --fp16), from which `minimumIoU` was derived;
    /// nil when they had no pair to compare.
    public var controlSmallestIoU: Float? = nil
    /// The largest |candidate score - reference score| among pairs.
    public var largestScoreDifference: Float
    /// The boxes agree: every compared pair has IoU >= `minimumIoU` and no box is found clearly above the
    /// threshold by one network only.
    public var pass: Bool
    /// Whether `pass` counts in the verdict: not for a saturated network, whose boxes say nothing a trained
    /// detector's would (the per-layer comparison still judges the fold).
    public var countsInVerdict: Bool

    /// Whether the boxes let the verdict pass.
    public var acceptable: Bool { pass || !countsInVerdict }

    /// Boxes found by either network above the threshold, before NMS: the pairs, the borderline and the
    /// clearly unpaired ones and those not compared for a non-finite side. Zero when neither network
    /// produced a box above the threshold.
    public var boxesBeforeNMS: Int { pairedBeforeNMS + borderlineUnpaired + clearlyUnpaired.count + nonFiniteBoxes }

    /// The sentence ending the text report's box section, e.g. "boxes agree: smallest IoU 0.99990 (minimum
    /// 0.99000), largest score difference 1.2e-07", or, without a compared pair, "boxes agree: neither
    /// network produced a box above the threshold 0.3".
    public var summary: String {
        let verdict = pass ? "agree" : countsInVerdict ? "DISAGREE" : "disagree (not counted)"
        guard let smallestIoU else {
            if boxesBeforeNMS == 0 { return "boxes \(verdict): neither network produced a box above the threshold \(threshold)" }
            return "boxes \(verdict): no box found by both networks above the threshold \(threshold), so no IoU to compare "
                + "(\(borderlineUnpaired) borderline, \(clearlyUnpaired.count) clearly above it, found by one network only)"
        }
        let control = controlSmallestIoU.map { String(format: "; the control's smallest IoU %.5f", $0) } ?? ""
        return "boxes \(verdict): smallest IoU \(String(format: "%.5f", smallestIoU)) (minimum \(String(format: "%.5f", minimumIoU))\(control)), "
            + "largest score difference \(largestScoreDifference == 0 ? "0" : String(format: "%.2e", Double(largestScoreDifference)))"
    }
}
