import FoldKitCore

/// Detection heads: the raw tensor passes through; the verifier decodes it.
enum DetectionSections {
    /// [yolo]: `classes` (20), `num` (1) anchors in total, `mask` (default 0..<num) selects this head's
    /// anchors, `anchors` (w,h pairs in pixels), `scale_x_y` (1), `new_coords` (0). The input must have
    /// mask.count * (classes + 5) channels, as darknet checks.
    ///
    /// Anchors as darknet's `parse_yolo` reads them (darknet src/parser.c): into an array of num*2 zeros,
    /// the first num*2 values given (fewer leave zeros: cspx-p7-mish_hp.cfg has 31 values for num=16, a
    /// missing comma having joined two); 0.5 each when `anchors=` is absent. A mask value at or past num
    /// (cspx-p7-mish.cfg: mask=16,17,18,19 with num=16) is loaded by darknet, which then reads past that
    /// array (undefined behaviour): FoldKit reads the network and decodes no boxes for those anchors
    /// (`DetectionHead.undecodedMask`, named in the verify report).
    static func yolo(_ context: SectionContext) throws -> BuiltLayer {
        try yoloHead(context, kind: .yolo)
    }

    /// [Gaussian_yolo] (darknet src/gaussian_yolo_layer.c): a [yolo] head whose anchors carry 9 + classes
    /// channels (x, its uncertainty, y, its uncertainty, w, ..., h, ..., objectness, classes); options as
    /// [yolo] (no new_coords). `yolo_point` other than center (box corners instead of centres) is refused.
    static func gaussianYolo(_ context: SectionContext) throws -> BuiltLayer {
        if let option = context.section.option("yolo_point"), option.value != "center" {
            throw context.error(.unsupported, "yolo_point=\(option.value) is not supported", at: option, expected: "center")
        }
        try context.refuse("new_coords", because: "darknet's [Gaussian_yolo] has no new_coords")
        return try yoloHead(context, kind: .gaussianYolo)
    }

    private static func yoloHead(_ context: SectionContext, kind: DetectionHead.Kind) throws -> BuiltLayer {
        let name = "[\(kind.rawValue)]"
        let classes = try context.int("classes", default: 20)
        let total = try context.int("num", default: 1)
        let mask = try context.intList("mask") ?? Array(0..<max(total, 0))
        guard classes >= 1, total >= 1, !mask.isEmpty, mask.allSatisfy({ $0 >= 0 }) else {
            throw context.error(
                .badInput, "\(name) needs classes >= 1, num >= 1 and mask values >= 0",
                found: "classes=\(classes) num=\(total) mask=\(mask)")
        }
        guard total <= SizeLimits.maximumAnchors else {
            throw context.error(.badInput, "\(name) num is too large", expected: "at most \(SizeLimits.maximumAnchors)", found: "\(total)")
        }
        var anchors = [Float](repeating: 0.5, count: total * 2)
        if let given = try context.floatList("anchors") {
            anchors = Array(given.prefix(total * 2)) + [Float](repeating: 0, count: max(0, total * 2 - given.count))
        }
        let perAnchor = kind == .gaussianYolo ? classes + 9 : classes + 5
        let expected = mask.count * perAnchor
        guard context.inputShape.channels == expected else {
            throw context.error(
                .badInput,
                "\(name) input channels do not match mask and classes (filters of the layer before must be mask.count*(classes+\(perAnchor - classes)))",
                expected: "\(expected)", found: "\(context.inputShape.channels)")
        }
        let head = DetectionHead(
            kind: kind, classes: classes, anchors: anchors, mask: mask, coords: 4, softmax: false,
            scaleXY: try context.float("scale_x_y", default: 1),
            newCoords: try context.int("new_coords", default: 0) != 0)
        return BuiltLayer(kind: .detection(head), inputs: [context.previous])
    }

    /// [region] (YOLOv2): `classes` (20), `coords` (4), `num` (1), `softmax` (0), `anchors` (w,h pairs in
    /// grid cells). mask = 0..<num. The input must have num * (classes + coords + 1) channels.
    /// `tree=` (YOLO9000): the class hierarchy file (`ClassTreeFile`), which replaces the softmax over all
    /// classes by one per sibling group (darknet's `forward_region_layer` tests `softmax_tree` first).
    /// `map=` is read by darknet for training only and is ignored.
    static func region(_ context: SectionContext) throws -> BuiltLayer {
        let classes = try context.int("classes", default: 20)
        let coords = try context.int("coords", default: 4)
        let num = try context.int("num", default: 1)
        guard classes >= 1, coords >= 4, num >= 1 else {
            throw context.error(
                .badInput, "[region] needs classes >= 1, coords >= 4, num >= 1", found: "classes=\(classes) coords=\(coords) num=\(num)")
        }
        guard num <= SizeLimits.maximumAnchors else {
            throw context.error(.badInput, "[region] num is too large", expected: "at most \(SizeLimits.maximumAnchors)", found: "\(num)")
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
        let tree = try context.section.option("tree").map { try ClassTreeFile.read($0, classes: classes, context: context) }
        let head = DetectionHead(
            kind: .region, classes: classes, anchors: anchors, mask: Array(0..<num), coords: coords,
            softmax: try context.int("softmax", default: 0) != 0, scaleXY: 1, newCoords: false, tree: tree?.tree)
        return BuiltLayer(kind: .detection(head), inputs: [context.previous], sourceFiles: tree.map { [$0.path] } ?? [])
    }

    /// [detection] (YOLOv1), as darknet's `parse_detection` / `make_detection_layer` (AlexeyAB darknet,
    /// src/parser.c, src/detection_layer.c): `classes` (1), `coords` (1), `num` (1), `side` (7),
    /// `softmax` (0), `sqrt` (0); `rescore`, `jitter`, `forced`, `random`, `max` and the loss scales act in
    /// training only. The input is read as a flat vector of side*side*((1 + coords)*num + classes) values
    /// (darknet asserts it). Only coords=4 is read: darknet's `get_detection_detections` steps 4 values a box
    /// whatever `coords` says, so any other value decodes values of another part of the vector.
    static func detection(_ context: SectionContext) throws -> BuiltLayer {
        let classes = try context.int("classes", default: 1)
        let coords = try context.int("coords", default: 1)
        let num = try context.int("num", default: 1)
        let side = try context.int("side", default: 7)
        guard classes >= 1, num >= 1, side >= 1 else {
            throw context.error(.badInput, "[detection] needs classes, num and side >= 1", found: "classes=\(classes) num=\(num) side=\(side)")
        }
        guard coords == 4 else {
            throw context.error(
                .unsupported, "[detection] coords=\(coords) is not supported: darknet decodes 4 values a box whatever coords says",
                at: context.section.option("coords"), expected: "coords=4", found: "coords=\(coords)")
        }
        guard num <= SizeLimits.maximumAnchors, side <= 1 << 15 else {
            throw context.error(.badInput, "[detection] num or side is too large", found: "num=\(num) side=\(side)")
        }
        let expected = side * side * ((1 + coords) * num + classes)
        guard context.inputShape.count == expected else {
            throw context.error(
                .badInput, "[detection] input size does not match side, num, coords and classes (side*side*((1+coords)*num+classes))",
                expected: "\(expected)", found: "\(context.inputShape.count) (\(context.inputShape))")
        }
        let head = DetectionHead(
            kind: .detection, classes: classes, anchors: [], mask: Array(0..<num), coords: coords,
            softmax: try context.int("softmax", default: 0) != 0, scaleXY: 1, newCoords: false, side: side,
            squaredSides: try context.int("sqrt", default: 0) != 0)
        return BuiltLayer(kind: .detection(head), inputs: [context.previous])
    }
}
