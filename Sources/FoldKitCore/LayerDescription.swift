/// The parameters of a layer that the blob manifest's `layers[]` lists beside its type and shapes
/// (Docs/BlobFormat.md, "manifest.json"); each operation fills what it has (`LayerOperation.describe`).
public struct LayerDescription: Sendable, Equatable {
    /// [kh, kw].
    public var kernel: [Int]?
    /// [sy, sx].
    public var stride: [Int]?
    /// [dy, dx].
    public var dilation: [Int]?
    /// [top, left, bottom, right].
    public var padding: [Int]?
    /// Convolution groups.
    public var groups: Int?
    /// The activation's name.
    public var activation: String?
    /// Whether a batch norm is folded into the layer's weights.
    public var foldedBatchNorm: Bool?
    /// A transposed convolution's [rows, columns] cut from the start of its full output.
    public var outputOffset: [Int]?
    /// Whether an average pool counts padded positions.
    public var countIncludesPadding: Bool?
    /// A route's [groups, group_id].
    public var routeGroups: [Int]?
    /// An upsample's scale.
    public var scale: Double?
    /// Whether the layer passes its input through.
    public var passThrough: Bool?
    /// A channel window's offset.
    public var channelOffset: Int?
    /// A layer normalization's epsilon.
    public var epsilon: Double?

    /// Nothing described.
    public init() {}
}
