/// The shape of one detection head's output tensor: `channels` x `height` x `width`, channel-major
/// (element (c, y, x) at (c * height + y) * width + x), the grid of cells being `height` x `width`.
public struct HeadGrid: Sendable, Hashable, Codable {
    /// Channels: entries per anchor times anchors ([yolo], [region]), or the flat vector's length ([detection]).
    public var channels: Int
    /// Grid rows.
    public var height: Int
    /// Grid columns.
    public var width: Int

    /// A grid of `height` x `width` cells with `channels` values each.
    public init(channels: Int, height: Int, width: Int) {
        self.channels = channels
        self.height = height
        self.width = width
    }

    /// channels * height * width.
    public var count: Int { channels * height * width }
}
