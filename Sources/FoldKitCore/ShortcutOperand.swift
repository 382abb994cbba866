/// The index arithmetic the engine writers (FoldKitONNX, FoldKitNCNN, FoldKitTFLite) share when they lower an
/// operation to another engine's operators is worked out once, in the file of the operation it belongs to
/// (route groups, channel windows, transposed convolution edges, darknet's reorg as space to depth), so
/// every engine is given the same decision (Docs/Export.md). The shortcut rule has its own type, here.

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
