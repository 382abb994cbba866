import FoldKitCore

/// Detection heads: the raw tensor passes through; the verifier decodes it.
enum DetectionSections {
    /// [yolo]: `classes` (20), `num` (1) anchors in total, `mask` (default 0..<num) selects this head's
    /// anchors, `anchors` (w,h pairs in pixels; the first num*2 values are used), `scale_x_y` (1),
    /// `new_coords` (0). The input must have mask.count * (classes + 5) channels, as darknet checks.
    static func yolo(_ context: SectionContext) throws -> BuiltLayer {
        let classes = try context.int("classes", default: 20)
        let total = try context.int("num", default: 1)
        let mask = try context.intList("mask") ?? Array(0..<max(total, 0))
        guard classes >= 1, total >= 1, !mask.isEmpty, mask.allSatisfy({ $0 >= 0 && $0 < total }) else {
            throw context.error(
                .badInput, "[yolo] needs classes >= 1, num >= 1 and mask values in 0..<num",
                found: "classes=\(classes) num=\(total) mask=\(mask)")
        }
        // Darknet initialises anchors to 0.5 when `anchors=` is absent.
        let anchors = Array((try context.floatList("anchors") ?? [Float](repeating: 0.5, count: total * 2)).prefix(total * 2))
        guard anchors.count == total * 2 else {
            throw context.error(.badInput, "[yolo] needs num*2 anchor values", expected: "\(total * 2)", found: "\(anchors.count)")
        }
        let expected = mask.count * (classes + 5)
        guard context.inputShape.channels == expected else {
            throw context.error(
                .badInput, "[yolo] input channels do not match mask and classes (filters of the layer before must be mask.count*(classes+5))",
                expected: "\(expected)", found: "\(context.inputShape.channels)")
        }
        let head = DetectionHead(
            kind: .yolo, classes: classes, anchors: anchors, mask: mask, coords: 4, softmax: false,
            scaleXY: try context.float("scale_x_y", default: 1),
            newCoords: try context.int("new_coords", default: 0) != 0)
        return BuiltLayer(kind: .detection(head), inputs: [context.previous])
    }

    /// [region] (YOLOv2): `classes` (20), `coords` (4), `num` (1), `softmax` (0), `anchors` (w,h pairs in
    /// grid cells). mask = 0..<num. The input must have num * (classes + coords + 1) channels.
    /// Refused: tree= (YOLO9000 hierarchical classes).
    static func region(_ context: SectionContext) throws -> BuiltLayer {
        if let option = context.section.option("tree") {
            throw context.error(.unsupported, "hierarchical (tree) [region] classes are not supported", at: option)
        }
        let classes = try context.int("classes", default: 20)
        let coords = try context.int("coords", default: 4)
        let num = try context.int("num", default: 1)
        guard classes >= 1, coords >= 4, num >= 1 else {
            throw context.error(
                .badInput, "[region] needs classes >= 1, coords >= 4, num >= 1", found: "classes=\(classes) coords=\(coords) num=\(num)")
        }
        // Darknet initialises anchors to 0.5 when `anchors=` is absent.
        let anchors = Array((try context.floatList("anchors") ?? [Float](repeating: 0.5, count: num * 2)).prefix(num * 2))
        guard anchors.count == num * 2 else {
            throw context.error(.badInput, "[region] needs num*2 anchor values", expected: "\(num * 2)", found: "\(anchors.count)")
        }
        let expected = num * (classes + coords + 1)
        guard context.inputShape.channels == expected else {
            throw context.error(
                .badInput, "[region] input channels do not match num, classes and coords",
                expected: "\(expected)", found: "\(context.inputShape.channels)")
        }
        let head = DetectionHead(
            kind: .region, classes: classes, anchors: anchors, mask: Array(0..<num), coords: coords,
            softmax: try context.int("softmax", default: 0) != 0, scaleXY: 1, newCoords: false)
        return BuiltLayer(kind: .detection(head), inputs: [context.previous])
    }
}
