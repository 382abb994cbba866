/// The boxes NMS has kept for one class, indexed so that a candidate is compared only with boxes that
/// could overlap it by more than the threshold.
///
/// IoU = intersection / union with intersection <= the smaller area and union >= the larger area, so
/// IoU <= smaller area / larger area. `Detection.iou` computes in Float: its intersection is never wider
/// or taller than either box's own computed extent ((x + w/2) - (x - w/2), rounded), so the bound holds
/// for the computed IoU when that extent matches the nominal width x height to within 0.1%
/// ("well-conditioned" boxes, kept sorted by area). Boxes for which it does not (tiny boxes far from
/// the origin, zero or non-finite sizes) are compared with every candidate, as are candidates of that
/// kind with every kept box. A 1% margin on the threshold covers the remaining Float rounding.
struct KeptBoxes {
    private var byArea: [(area: Float, box: Detection)] = []
    private var others: [Detection] = []

    private static func areas(_ d: Detection) -> (nominal: Float, wellConditioned: Bool) {
        let nominal = d.width * d.height
        let extentX = (d.x + d.width / 2) - (d.x - d.width / 2)
        let extentY = (d.y + d.height / 2) - (d.y - d.height / 2)
        let effective = extentX * extentY
        let ok = nominal.isFinite && nominal > 0 && effective.isFinite && effective <= nominal * 1.001
        return (nominal, ok)
    }

    /// First index whose area is >= `area`.
    private func lowerBound(_ area: Float) -> Int {
        var low = 0, high = byArea.count
        while low < high {
            let mid = (low + high) / 2
            if byArea[mid].area < area { low = mid + 1 } else { high = mid }
        }
        return low
    }

    mutating func insert(_ box: Detection) {
        let (area, ok) = Self.areas(box)
        if ok { byArea.insert((area, box), at: lowerBound(area)) } else { others.append(box) }
    }

    /// True when some kept box overlaps `candidate` with IoU above `iouThreshold`.
    func suppresses(_ candidate: Detection, iouThreshold: Float) -> Bool {
        if others.contains(where: { $0.iou(candidate) > iouThreshold }) { return true }
        let (area, ok) = Self.areas(candidate)
        let factor = iouThreshold * 0.99
        guard ok, factor > 0 else {
            return byArea.contains { $0.box.iou(candidate) > iouThreshold }
        }
        var i = lowerBound(area * factor)
        let upper = area / factor
        while i < byArea.count, byArea[i].area <= upper {
            if byArea[i].box.iou(candidate) > iouThreshold { return true }
            i += 1
        }
        return false
    }
}
