/// YOLO detection head parameters ([region] of YOLOv2, [yolo] of YOLOv3+). The executor passes the
/// raw tensor through unchanged; decoding happens in the verifier.
public struct DetectionHead: Sendable, Hashable {
    public enum Kind: String, Sendable { case region, yolo }
    public var kind: Kind
    public var classes: Int
    /// Anchor (w, h) pairs, all of them ([yolo] selects with `mask`). Region anchors are in grid cells, yolo's in pixels.
    public var anchors: [Float]
    public var mask: [Int]
    public var coords: Int
    public var softmax: Bool
    public var scaleXY: Float
    public var newCoords: Bool

    public init(kind: Kind, classes: Int, anchors: [Float], mask: [Int], coords: Int = 4, softmax: Bool = true, scaleXY: Float = 1, newCoords: Bool = false) {
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
}
