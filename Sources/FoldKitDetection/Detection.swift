/// One detected box in network-input coordinates, normalised to [0, 1]: (x, y) is the centre,
/// (width, height) the size, as fractions of the network input's width and height.
public struct Detection: Codable, Equatable, Sendable {
    /// The class with the highest score.
    public var classIndex: Int
    /// objectness x class probability
    public var score: Float
    /// The box's objectness (1 for heads without one).
    public var objectness: Float
    /// Centre x, fraction of the input width.
    public var x: Float
    /// Centre y, fraction of the input height.
    public var y: Float
    /// Width, fraction of the input width.
    public var width: Float
    /// Height, fraction of the input height.
    public var height: Float
    /// Which head, grid cell and anchor produced it (for reports).
    public var head: Int
    /// The grid cell (row-major).
    public var cell: Int
    /// The anchor within the head.
    public var anchor: Int

    /// A box with its score, geometry and origin.
    public init(
        classIndex: Int, score: Float, objectness: Float, x: Float, y: Float, width: Float, height: Float, head: Int = 0, cell: Int = 0,
        anchor: Int = 0
    ) {
        self.classIndex = classIndex
        self.score = score
        self.objectness = objectness
        self.x = x
        self.y = y
        self.width = width
        self.height = height
        self.head = head
        self.cell = cell
        self.anchor = anchor
    }

    /// Whether the centre and size are all finite numbers (an overflowing `exp` gives an infinite side,
    /// a NaN input a NaN coordinate).
    public var hasFiniteGeometry: Bool { x.isFinite && y.isFinite && width.isFinite && height.isFinite }

    /// Intersection over union of two boxes (0 when either is empty).
    public func iou(_ other: Detection) -> Float {
        let left = max(x - width / 2, other.x - other.width / 2)
        let right = min(x + width / 2, other.x + other.width / 2)
        let top = max(y - height / 2, other.y - other.height / 2)
        let bottom = min(y + height / 2, other.y + other.height / 2)
        let intersection = max(0, right - left) * max(0, bottom - top)
        let union = width * height + other.width * other.height - intersection
        return union > 0 ? intersection / union : 0
    }
}
