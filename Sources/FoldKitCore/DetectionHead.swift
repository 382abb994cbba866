/// YOLO detection head parameters ([detection] of YOLOv1, [region] of YOLOv2, [yolo] of YOLOv3+): what
/// `DetectionDecoder` needs to turn the head's raw output tensor into boxes. The executor passes the raw
/// tensor through unchanged; verify and an app (FoldKitLoader, from manifest.json's `heads`) decode it.
///
/// A [detection] head (darknet's src/detection_layer.c) reads a flat vector of side * side * (classes +
/// num * 5) values: side*side*classes class probabilities (location-major, `classes` per location), then
/// side*side*num confidences, then side*side*num*4 box values (x, y, w, h per box, location-major).
public struct DetectionHead: Sendable, Hashable, Codable {
    /// [detection] (YOLOv1), [region] (YOLOv2), [yolo] (YOLOv3 and later) or [Gaussian_yolo] (Gaussian
    /// YOLOv3: each box coordinate with an uncertainty).
    public enum Kind: String, Sendable, Codable {
        case detection, region, yolo
        case gaussianYolo = "Gaussian_yolo"
    }
    /// detection, region, yolo or Gaussian_yolo.
    public var kind: Kind
    /// The number of classes.
    public var classes: Int
    /// Anchor (w, h) pairs, all of them ([yolo] selects with `mask`). Region anchors are in grid cells, yolo's in pixels.
    public var anchors: [Float]
    /// Which anchors this [yolo] head uses (indices into `anchors`).
    public var mask: [Int]
    /// Box coordinates per anchor (4).
    public var coords: Int
    /// [region], [detection]: class scores through softmax.
    public var softmax: Bool
    /// [yolo] scale_x_y: x = (sigmoid(t) * s - (s - 1) / 2 + cell) / grid.
    public var scaleXY: Float
    /// [yolo] new_coords=1 (Scaled-YOLOv4): the outputs are already activated.
    public var newCoords: Bool
    /// [detection]: the grid is side x side cells (0 for the other kinds, whose grid is the tensor's H x W).
    public var side: Int
    /// [detection] sqrt=1: the box's w and h are the squares of its values (w = value^2), else the values.
    public var squaredSides: Bool
    /// [region] tree= (YOLO9000): the class hierarchy; class scores go through a softmax per sibling group
    /// and are multiplied down the tree (`ClassTree`), instead of one softmax over all classes.
    public var tree: ClassTree?

    /// A detection head with Darknet's defaults for what is not given.
    public init(
        kind: Kind, classes: Int, anchors: [Float], mask: [Int], coords: Int = 4, softmax: Bool = true, scaleXY: Float = 1, newCoords: Bool = false,
        side: Int = 0, squaredSides: Bool = false, tree: ClassTree? = nil
    ) {
        self.kind = kind
        self.classes = classes
        self.anchors = anchors
        self.mask = mask
        self.coords = coords
        self.softmax = softmax
        self.scaleXY = scaleXY
        self.newCoords = newCoords
        self.side = side
        self.squaredSides = squaredSides
        self.tree = tree
    }

    /// Number of boxes predicted per grid cell.
    public var boxesPerCell: Int { mask.count }

    /// Channels per anchor: tx, ty, tw, th, objectness and the classes (5 + classes); [Gaussian_yolo]:
    /// each coordinate followed by its uncertainty, then objectness and the classes (9 + classes).
    public var entriesPerAnchor: Int { kind == .gaussianYolo ? 9 + classes : 5 + classes }

    /// What darknet's forward function does in place to entry `k` (0 ..< `entriesPerAnchor`) of an anchor
    /// slot of a [yolo] or [Gaussian_yolo] head (AlexeyAB darknet, src/yolo_layer.c, src/gaussian_yolo_layer.c):
    /// `logistic` applies the logistic, then `scaled` maps v to v * scale_x_y - 0.5 * (scale_x_y - 1).
    /// [yolo]: x, y (k = 0, 1) logistic and scaled, w, h raw, objectness and classes logistic; with
    /// `new_coords=1` nothing logistic, x and y still scaled. [Gaussian_yolo]: k = 0, 1, 2, 3, 5, 7 and from
    /// 8 on logistic, x and y (k = 0, 2) scaled. Other kinds: neither.
    public func darknetBufferEntry(_ k: Int) -> (logistic: Bool, scaled: Bool) {
        switch kind {
        case .yolo: return (!newCoords && (k < 2 || k >= 4), k < 2)
        case .gaussianYolo: return ([0, 1, 2, 3, 5, 7].contains(k) || k >= 8, k == 0 || k == 2)
        case .region, .detection: return (false, false)
        }
    }

    /// The mask values that select no anchor pair (index * 2 + 1 past `anchors`): darknet loads such a
    /// [yolo] head and reads past its anchor array (undefined behaviour); no boxes are decoded for them.
    /// Always empty for [detection], which has no anchors.
    public var undecodedMask: [Int] { kind == .detection ? [] : mask.filter { 2 * $0 + 1 >= anchors.count } }
}

extension DetectionHead: LayerOperation {
    public var layerKind: LayerKind { .detection(self) }

    public func typeName(inputShapes: [ActivationShape]) -> String { kind.rawValue }

    /// The input, passed through raw: verify and FoldKitLoader decode it with these parameters.
    public func outputShape(for inputs: [ActivationShape]) throws -> ActivationShape { inputs[0] }

    public var passesInputThrough: Bool { true }

    public var deviationCarry: DeviationCarry? { .unchanged }
}
