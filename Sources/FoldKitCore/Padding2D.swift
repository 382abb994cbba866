/// Zero or -infinity padding around a feature map, in pixels per side.
public struct Padding2D: Hashable, Sendable, Codable {
    public var top: Int
    public var left: Int
    public var bottom: Int
    public var right: Int

    public init(top: Int, left: Int, bottom: Int, right: Int) {
        self.top = top
        self.left = left
        self.bottom = bottom
        self.right = right
    }

    public static let zero = Padding2D(top: 0, left: 0, bottom: 0, right: 0)

    /// The same padding on every side.
    public static func uniform(_ p: Int) -> Padding2D { Padding2D(top: p, left: p, bottom: p, right: p) }
}
