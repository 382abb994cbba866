/// One layer of the converted network as manifest.json describes it (Docs/BlobFormat.md "manifest.json"):
/// what an engine needs to rebuild the layer around its blobs.
public struct BlobLayer: Codable, Equatable, Sendable {
    /// The layer's index (Darknet section index after [net]; position in the Keras graph).
    public var index: Int
    /// The layer's name (the Darknet index as text, or the Keras layer name).
    public var name: String
    /// "conv", "conv(depthwise)", "conv(groups=N)", "connected", "maxpool", "route", ... (the manifest's `type`).
    public var type: String
    /// Indices of the layers read; -1 is the network input.
    public var inputs: [Int]
    /// Output shape [C, H, W].
    public var outputShape: [Int]
    /// [kh, kw] for convolutions (transposed ones too) and pooling.
    public var kernel: [Int]?
    /// [stride y, stride x].
    public var stride: [Int]?
    /// [dilation y, dilation x].
    public var dilation: [Int]?
    /// [top, left, bottom, right].
    public var padding: [Int]?
    /// Convolution groups (1 dense; the input channel count for depthwise).
    public var groups: Int?
    /// The activation applied after the layer ("leaky", "relu", "linear", ...).
    public var activation: String?
    /// Batch norm was folded into this layer's weights and bias.
    public var foldedBatchNorm: Bool?
    /// A channel window's offset: output channel c is input channel c + channelOffset (zero outside the
    /// input); the window's channel count is outputShape[0].
    public var channelOffset: Int?
    /// A layer normalization's epsilon (added to the variance under the square root).
    public var epsilon: Double?
    /// A transposed convolution's [rows, columns] cut from the start of its full output
    /// ((H - 1) * stride + kh by (W - 1) * stride + kw); the output kept is outputShape's H x W from there.
    public var outputOffset: [Int]?
    /// A Darknet [route] taking one channel group of each input: [groups, group id]; input i contributes its
    /// channels [id * C_i / groups, (id + 1) * C_i / groups).
    public var routeGroups: [Int]?
    /// An upsample's multiplier of every value (Darknet [upsample] `scale`; absent when 1). Its factors are `stride`.
    public var scale: Double?
    /// An average pool counts the padded cells in its divisor (absent: it does not).
    public var countIncludesPadding: Bool?
    /// The layer passes its input through unchanged at inference ([dropout], [cost], ...): `type` names what it is.
    public var passThrough: Bool?

    /// A layer with every field given (the optional ones only where they apply).
    public init(
        index: Int, name: String, type: String, inputs: [Int], outputShape: [Int], kernel: [Int]? = nil, stride: [Int]? = nil,
        dilation: [Int]? = nil, padding: [Int]? = nil, groups: Int? = nil, activation: String? = nil, foldedBatchNorm: Bool? = nil,
        channelOffset: Int? = nil, epsilon: Double? = nil, outputOffset: [Int]? = nil, routeGroups: [Int]? = nil, scale: Double? = nil,
        countIncludesPadding: Bool? = nil, passThrough: Bool? = nil
    ) {
        self.index = index
        self.name = name
        self.type = type
        self.inputs = inputs
        self.outputShape = outputShape
        self.kernel = kernel
        self.stride = stride
        self.dilation = dilation
        self.padding = padding
        self.groups = groups
        self.activation = activation
        self.foldedBatchNorm = foldedBatchNorm
        self.channelOffset = channelOffset
        self.epsilon = epsilon
        self.outputOffset = outputOffset
        self.routeGroups = routeGroups
        self.scale = scale
        self.countIncludesPadding = countIncludesPadding
        self.passThrough = passThrough
    }
}
