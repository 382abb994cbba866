/// The index arithmetic the engine writers (FoldKitONNX, FoldKitNCNN) share when they lower an operation
/// to another engine's operators: which channels, rows and columns an operation reads, and which it fills
/// with zeros. Worked out once here so every engine is given the same decision (Docs/Export.md).

/// darknet's [shortcut] rule (`shortcut_cpu`) for one further input of another shape than the output:
/// with stride = max(Wi/W0, 1) and sample = max(W0/Wi, 1),
///
///     out[k, j*sample, i*sample] += in[k, j*stride, i*stride]   for k < min(C0, Ci), j < min(H0, Hi), i < min(W0, Wi)
///
/// An engine takes channels 0 ..< `channels` and every `stride`-th row and column of the input (`rows` x
/// `columns` of them), spreads each value to the top-left of a `sample` x `sample` block of zeros, keeps
/// the output's rows and columns of that, and pads with zeros to the output's shape.
public struct ShortcutOperand: Sendable, Equatable {
    /// Channels added: min(C0, Ci).
    public var channels: Int
    /// The input is read every `stride` rows and columns.
    public var stride: Int
    /// Each value read lands every `sample` rows and columns of the output.
    public var sample: Int
    /// Rows read: min(H0, Hi).
    public var rows: Int
    /// Columns read: min(W0, Wi).
    public var columns: Int

    /// The rule for an input of shape `input` added to an output of shape `output`.
    public init(input: ActivationShape, output: ActivationShape) {
        stride = max(input.width / output.width, 1)
        sample = max(output.width / input.width, 1)
        channels = min(output.channels, input.channels)
        rows = min(output.height, input.height)
        columns = min(output.width, input.width)
    }

    /// Rows of the input the strided read spans: (rows - 1) * stride + 1.
    public var spannedRows: Int { (rows - 1) * stride + 1 }
    /// Columns of the input the strided read spans.
    public var spannedColumns: Int { (columns - 1) * stride + 1 }

    /// Whether the input must be cut before it is added (other channels, a stride, or rows or columns
    /// past what is read); false means the input is added as it is read.
    public func cutsInput(_ input: ActivationShape) -> Bool {
        channels != input.channels || stride != 1 || spannedRows < input.height || spannedColumns < input.width
    }

    /// Rows after spreading: rows * sample (may pass the output's, then cut to it).
    public var spreadRows: Int { rows * sample }
    /// Columns after spreading.
    public var spreadColumns: Int { columns * sample }

    /// Zero channels, rows (bottom) and columns (right) padded after the spread values to reach `output`.
    public func padding(to output: ActivationShape) -> (channels: Int, rows: Int, columns: Int) {
        (output.channels - channels, max(output.height - spreadRows, 0), max(output.width - spreadColumns, 0))
    }
}

extension Concatenation {
    /// The channels of an input of `inputChannels` that go into the concatenation:
    /// [groupID * C/groups, (groupID + 1) * C/groups).
    public func takenChannels(of inputChannels: Int) -> Range<Int> {
        let size = inputChannels / groups
        return (groupID * size)..<((groupID + 1) * size)
    }
}

extension ChannelRange {
    /// The window against an input of `inputChannels`: the input channels it takes (empty when it takes
    /// none), and the zero channels before and after them.
    public func window(inputChannels: Int) -> (taken: Range<Int>, before: Int, after: Int) {
        let first = max(offset, 0), last = min(offset + channels, inputChannels)
        guard last > first else { return (first..<first, channels, 0) }
        let before = max(-offset, 0)
        return (first..<last, before, channels - before - (last - first))
    }
}

extension TransposedConvolution {
    /// How the kept output relates to the full output along one axis: the full output of an input of n
    /// rows is (n - 1) * stride + k rows; `begin` rows are cut before the kept ones, `end` after them, and
    /// `extra` rows past the full output are kept (they hold the bias alone).
    public struct Edges: Sendable, Equatable {
        /// Rows cut before the kept rows (the offset).
        public var begin: Int
        /// Rows of the full output cut after the kept rows (0 when the kept rows reach past it).
        public var end: Int
        /// Kept rows past the full output.
        public var extra: Int
    }

    /// The edges of the rows (`rows`) and columns (`columns`) for an input of shape `input`.
    public func edges(input: ActivationShape) -> (rows: Edges, columns: Edges) {
        func edges(extent: Int, stride: Int, kernel: Int, offset: Int, kept: Int) -> Edges {
            let full = (extent - 1) * stride + kernel
            let end = full - offset - kept
            return end >= 0 ? Edges(begin: offset, end: end, extra: 0) : Edges(begin: offset, end: 0, extra: -end)
        }
        return (
            edges(extent: input.height, stride: strideY, kernel: kernelHeight, offset: offsetY, kept: outputHeight),
            edges(extent: input.width, stride: strideX, kernel: kernelWidth, offset: offsetX, kept: outputWidth)
        )
    }
}

extension Reorg {
    /// darknet's [reorg] (`reorg_cpu(..., forward=0)`) as space to depth: its C x H x W input, read in
    /// its own memory order as C/s² x (H·s) x (W·s) (the shape returned), then rearranged as [reorg3d] and
    /// tf.space_to_depth do (out[(dy*s + dx)*C' + c, y, x] = in[c, y*s + dy, x*s + dx]), gives darknet's
    /// output in its memory order - the permutation (c2, j, dy, i, dx) -> (dy, dx, c2, j, i) of the flat
    /// input that the onnx writer spells as one Transpose. nil when C is not a multiple of s².
    public func darknetReinterpretedInput(_ input: ActivationShape) -> ActivationShape? {
        let s = stride
        guard s >= 1, input.channels % (s * s) == 0 else { return nil }
        return ActivationShape(channels: input.channels / (s * s), height: input.height * s, width: input.width * s)
    }
}
