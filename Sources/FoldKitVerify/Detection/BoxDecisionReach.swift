import FoldKitCore
import FoldKitDetection
import Foundation

/// How far the allowance on a detection head's input can move the values that decide whether a box
/// exists, so that a box found by one network only is judged against what the verdict itself allows
/// (Docs/Verify.md, "Boxes").
///
/// A box exists when its score (and, for a class-tree head, its objectness and its class probability)
/// exceeds the threshold. Each of those is a monotone function of a few values of the head's input, and
/// the verdict lets every value of that input move by the layer's allowance `A` (max |candidate -
/// reference| allowed, in the input's units). The reach of a box is the interval its deciding values can
/// take when every input value it reads moves by at most `A`:
///
/// - objectness: `sigmoid(logit(obj) -/+ A)`; taken as it is (`new_coords=1`, [detection]): `obj -/+ A`;
/// - a logistic class probability ([yolo]): `sigmoid(logit(p) -/+ A)`;
/// - a softmax class probability ([region] softmax=1, [detection] softmax=1): `sigmoid(logit(p) -/+ 2A)`,
///   the exact extremes (the class's logit down by A, every other up by A);
/// - a class probability taken as it is (`new_coords=1`, softmax=0): `p -/+ A`;
/// - [Gaussian_yolo]'s `sigmoid(c) x (1 - mean of four uncertainties)`: `p -/+ A/2` (each factor's slope
///   is at most 1/4 and both factors lie in [0, 1]);
/// - a class-tree probability (YOLO9000: a product of `depth` sibling-group softmaxes, each moving by at
///   most A/2 in the maximum norm): `p -/+ depth x A/2`.
///
/// The score interval is the product of the objectness and class intervals (both factors are non-negative
/// and each increases with its own inputs). A box found by one network only is within reach when the
/// threshold lies inside its score interval, or (class-tree heads) inside its objectness or its class
/// interval, or 0.5, where the tree picks the box's one class, lies inside its class interval: an
/// allowed deviation of the reference could then make or lose the box, so it is borderline, not a
/// disagreement. The intervals come from the box's own values, whichever network found it; the other
/// network's values lie within the layer's measured deviation of them, which the layer's verdict has
/// already bounded by `A`.
struct BoxDecisionReach: Sendable, Equatable {
    /// How a probability is made from the head's input.
    enum Form: Sendable, Equatable {
        /// Taken as it is.
        case raw
        /// A logistic of one input value.
        case logistic
        /// One entry of a softmax over input values.
        case softmax
        /// [Gaussian_yolo]'s logistic times one minus the mean of four logistic uncertainties.
        case discountedLogistic
        /// A product of sibling-group softmaxes down a class tree, of the given depth per class.
        case tree(depths: [Int])
        /// A product of values taken as they are (a class tree's probability from darknet's buffer), of the
        /// given depth per class.
        case product(depths: [Int])

        /// Whether the box's one class is picked down a class tree (`tree` or `product`).
        var isTree: Bool {
            switch self {
            case .tree, .product: return true
            case .raw, .logistic, .softmax, .discountedLogistic: return false
            }
        }
    }

    /// The allowance on the head's input (the verdict's `allowed` for the head's layer).
    var allowance: Float
    /// How the objectness is made.
    var objectness: Form
    /// How the class probabilities are made.
    var classes: Form

    /// The reach of `head`'s boxes under `allowance`. `onBuffer`: the allowance is on darknet's buffer (a head
    /// decoded by an engine), whose objectness and class probabilities are values of the buffer itself:
    /// each moves by at most A (`raw`), a class-tree probability, a product of `depth` of them, by depth x A.
    init(head: DetectionHead, allowance: Double, onBuffer: Bool = false) {
        self.allowance = Float(allowance)
        if onBuffer {
            objectness = .raw
            if let tree = head.tree, head.kind == .region {
                classes = .product(depths: tree.parents.indices.map { BoxDecisionReach.depth(of: $0, in: tree) })
            } else {
                classes = head.kind == .gaussianYolo ? .discountedLogistic : .raw
            }
            return
        }
        switch head.kind {
        case .yolo:
            objectness = head.newCoords ? .raw : .logistic
            classes = head.newCoords ? .raw : .logistic
        case .gaussianYolo:
            objectness = .logistic
            classes = .discountedLogistic
        case .region:
            objectness = .logistic
            if let tree = head.tree {
                classes = .tree(depths: tree.parents.indices.map { BoxDecisionReach.depth(of: $0, in: tree) })
            } else {
                classes = head.softmax ? .softmax : .raw
            }
        case .detection:
            objectness = .raw
            classes = head.softmax ? .softmax : .raw
        }
    }

    /// The reach of each head of `network` (keyed as `Detection.head` counts heads: in layer order) from the
    /// allowances of the heads' layers (`allowed` by layer index); a head whose layer has none has no reach.
    /// `darknetBuffers` are the heads' layers judged on darknet's buffer (`init(head:allowance:onBuffer:)`).
    static func perHead(of network: Network, allowances: [Int: Double], darknetBuffers: Set<Int> = []) -> [Int: BoxDecisionReach] {
        var reach: [Int: BoxDecisionReach] = [:]
        var headIndex = 0
        for layer in network.layers {
            guard case .detection(let head) = layer.kind else { continue }
            if let allowed = allowances[layer.index] {
                reach[headIndex] = BoxDecisionReach(head: head, allowance: allowed, onBuffer: darknetBuffers.contains(layer.index))
            }
            headIndex += 1
        }
        return reach
    }

    /// The interval `value` can take in `form` when its inputs move by at most the allowance; `depth` is the
    /// class's depth for a tree.
    func interval(_ value: Float, form: Form, classIndex: Int = 0) -> ClosedRange<Float> {
        let a = Double(allowance), v = Double(value)
        let (low, high): (Double, Double)
        switch form {
        case .raw: (low, high) = (v - a, v + a)
        case .logistic: (low, high) = (Self.shiftedLogistic(v, by: -a), Self.shiftedLogistic(v, by: a))
        case .softmax: (low, high) = (Self.shiftedLogistic(v, by: -2 * a), Self.shiftedLogistic(v, by: 2 * a))
        case .discountedLogistic: (low, high) = (v - a / 2, v + a / 2)
        case .tree(let depths):
            let depth = Double(classIndex < depths.count ? depths[classIndex] : depths.count)
            (low, high) = (v - depth * a / 2, v + depth * a / 2)
        case .product(let depths):
            let depth = Double(classIndex < depths.count ? depths[classIndex] : depths.count)
            (low, high) = (v - depth * a, v + depth * a)
        }
        guard low.isFinite, high.isFinite, low <= high else { return -Float.infinity...Float.infinity }
        return Float(low)...Float(high)
    }

    /// Whether an allowed deviation of the head's input could make or lose `box` at `threshold` (the type's rule).
    func reaches(_ box: Detection, threshold: Float) -> Bool {
        let objectnessRange = interval(box.objectness, form: objectness)
        if classes.isTree {
            let classRange = interval(box.score, form: classes, classIndex: box.classIndex)
            return objectnessRange.contains(threshold) || classRange.contains(threshold)
                || classRange.contains(ClassTree.decisionProbability)
        }
        // score = objectness x p; p recovered from the box (objectness > threshold > 0 for a kept box).
        guard box.objectness > 0 else { return true }
        let classRange = interval(box.score / box.objectness, form: classes)
        let low = max(0, objectnessRange.lowerBound) * max(0, classRange.lowerBound)
        let high = objectnessRange.upperBound * classRange.upperBound
        return low <= threshold && threshold <= high
    }

    /// sigmoid(logit(p) + shift) for a probability `p`, in float64. A float32 probability of exactly 1 says
    /// only that its logit is at least logit(1 - 2^-25) (about 17.3: every larger logit rounds to 1), and one
    /// of exactly 0 that its logit is at most logit(2^-150) (about -104); the shift starts from that bound.
    static func shiftedLogistic(_ p: Double, by shift: Double) -> Double {
        let logit: Double
        if p >= 1 {
            guard shift < 0 else { return 1 }
            logit = log1p(-0x1p-25) - log(0x1p-25)
        } else if p <= 0 {
            guard shift > 0 else { return 0 }
            logit = log(0x1p-150)
        } else {
            logit = log(p) - log1p(-p)
        }
        return 1 / (1 + exp(-(logit + shift)))
    }

    /// The number of sibling-group softmaxes multiplied into class `k`'s probability: one for a root.
    static func depth(of k: Int, in tree: ClassTree) -> Int {
        var depth = 1, node = k
        while depth <= tree.count, node >= 0, node < tree.parents.count, tree.parents[node] >= 0, tree.parents[node] < node {
            node = tree.parents[node]
            depth += 1
        }
        return depth
    }
}
