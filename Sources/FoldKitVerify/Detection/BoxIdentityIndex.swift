import FoldKitDetection

/// Boxes looked up by identity (head, anchor, cell, class): the keys sorted once, then one merge.
///
/// The key is ordered as `DetectionDecoder` emits boxes (head, then anchor, then cell, then class, for
/// masks in increasing order as in every Darknet cfg), so the (run-detecting) sort finds decoded lists
/// already in order.
struct BoxIdentityIndex {
    struct Key: Comparable {
        var head, anchor, cell, classIndex: Int
        init(_ d: Detection) { (head, anchor, cell, classIndex) = (d.head, d.anchor, d.cell, d.classIndex) }
        static func < (a: Key, b: Key) -> Bool { (a.head, a.anchor, a.cell, a.classIndex) < (b.head, b.anchor, b.cell, b.classIndex) }
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
