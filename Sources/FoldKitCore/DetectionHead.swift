/// YOLO detection head parameters ([region] of YOLOv2, [yolo] of YOLOv3+). The executor passes the
/// raw tensor through unchanged; decoding happens in the verifier.
public struct DetectionHead: Sendable, Hashable {
    /// [region] (YOLOv2), [yolo] (YOLOv3 and later) or [Gaussian_yolo] (Gaussian YOLOv3: each box
    /// coordinate with an uncertainty).
    public enum Kind: String, Sendable {
        case region, yolo
        case gaussianYolo = "Gaussian_yolo"
    }
    /// region or yolo.
    public var kind: Kind
    /// The number of classes.
    public var classes: Int
    /// Anchor (w, h) pairs, all of them ([yolo] selects with `mask`). Region anchors are in grid cells, yolo's in pixels.
    public var anchors: [Float]
    /// Which anchors this [yolo] head uses (indices into `anchors`).
    public var mask: [Int]
    /// Box coordinates per anchor (4).
    public var coords: Int
    /// [region]: class scores through softmax.
    public var softmax: Bool
    /// [yolo] scale_x_y: x = (sigmoid(t) * s - (s - 1) / 2 + cell) / grid.
    public var scaleXY: Float
    /// [yolo] new_coords=1 (Scaled-YOLOv4): the outputs are already activated.
    public var newCoords: Bool

    /// A detection head with Darknet's defaults for what is not given.
    public init(
        kind: Kind, classes: Int, anchors: [Float], mask: [Int], coords: Int = 4, softmax: Bool = true, scaleXY: Float = 1, newCoords: Bool = false
    ) {
        self.kind = kind
        self.classes = classes
        self.anchors = anchors
        self.mask = mask
        self.coords = coords
        self.softmax = softmax
        self.scaleXY = scaleXY
        self.newCoords = newCoords
    }

    /// Number of boxes predicted per grid cell.
    public var boxesPerCell: Int { mask.count }

    /// Channels per anchor: tx, ty, tw, th, objectness and the classes (5 + classes); [Gaussian_yolo]:
    /// each coordinate followed by its uncertainty, then objectness and the classes (9 + classes).
    public var entriesPerAnchor: Int { kind == .gaussianYolo ? 9 + classes : 5 + classes }

    /// The mask values that select no anchor pair (index * 2 + 1 past `anchors`): darknet loads such a
    /// [yolo] head and reads past its anchor array (undefined behaviour); no boxes are decoded for them.
    public var undecodedMask: [Int] { mask.filter { 2 * $0 + 1 >= anchors.count } }
}
