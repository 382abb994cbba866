/// A hierarchy of classes (YOLO9000's WordTree), as darknet's `tree` holds it (darknet src/tree.c
/// `read_tree`): class k's parent is `parents[k]`, -1 for a root, and every parent comes before its
/// children.
///
/// Darknet's softmax over a tree (src/blas.c `softmax_tree`) runs over groups: maximal runs of
/// consecutive classes with the same parent, in file order (two runs of one parent are two groups).
/// For classes k in a group g: p(k | parent) = exp(x_k - max_g) / sum over g of exp(x_j - max_g).
/// Decoding (src/region_layer.c `get_region_boxes`, src/tree.c `hierarchy_predictions`) multiplies
/// down the tree, in class order: p(k) = p(k | parent) * p(parent).
public struct ClassTree: Sendable, Hashable, Codable {
    /// parents[k]: the parent of class k, or -1 for a root.
    public var parents: [Int]

    /// A box's class is the last whose probability exceeds this (darknet's `get_region_boxes`).
    public static let decisionProbability: Float = 0.5

    /// A tree from each class's parent (-1 for a root).
    public init(parents: [Int]) {
        self.parents = parents
    }

    /// The number of classes.
    public var count: Int { parents.count }

    /// The softmax groups as ranges of class indices: each maximal run of consecutive classes sharing a
    /// parent, in order (darknet's `group_offset` and `group_size`).
    public var groups: [Range<Int>] {
        var result: [Range<Int>] = []
        var start = 0
        for k in 1..<max(parents.count, 1) where parents[k] != parents[k - 1] {
            result.append(start..<k)
            start = k
        }
        if start < parents.count { result.append(start..<parents.count) }
        return result
    }

    /// Turns each group's softmax outputs (conditional probabilities) into absolute ones in place:
    /// p(k) *= p(parent(k)), in class order. A parent index that is not an earlier class is treated as a
    /// root (a damaged manifest cannot make this read out of bounds).
    public func multiplyDownTree(_ probabilities: inout [Float]) {
        for k in 0..<min(parents.count, probabilities.count) {
            let parent = parents[k]
            if parent >= 0 && parent < k { probabilities[k] *= probabilities[parent] }
        }
    }
}
