/// Zero or -infinity padding around a feature map, in pixels per side.
public struct Padding2D: Hashable, Sendable, Codable {
    /// Rows added above.
    public var top: Int
    /// Columns added on the left.
    public var left: Int
    /// Rows added below.
    public var bottom: Int
    /// Columns added on the right.
    public var right: Int

    /// Padding of each side, in elements.
    public init(top: Int, left: Int, bottom: Int, right: Int) {
        self.top = top
        self.left = left
        self.bottom = bottom
        self.right = right
    }

    /// No padding.
    public static let zero = Padding2D(top: 0, left: 0, bottom: 0, right: 0)

    /// The same padding on every side.
    public static func uniform(_ p: Int) -> Padding2D { Padding2D(top: p, left: p, bottom: p, right: p) }
}
