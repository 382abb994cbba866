/// Max or average pooling over a kernel window. Output size per axis: (in + padBefore + padAfter - kernel) / stride + 1.
/// The window for output (y, x) starts at (y*strideY - padding.top, x*strideX - padding.left).
/// Max pooling treats padding as -infinity. Average pooling divides by the window area when
/// `countIncludesPadding`, else by the number of in-bounds elements (Keras 'same').
public struct Pooling: Sendable, Hashable {
    /// Max or average.
    public enum Kind: String, Sendable { case max, average }
    /// Max or average.
    public var kind: Kind
    /// Window height.
    public var kernelHeight: Int
    /// Window width.
    public var kernelWidth: Int
    /// Vertical step between windows.
    public var strideY: Int
    /// Horizontal step between windows.
    public var strideX: Int
    /// Padding of each side (see above for what it holds).
    public var padding: Padding2D
    /// Average pooling divides by the whole window area (true) or by the in-bounds elements (false).
    public var countIncludesPadding: Bool

    /// A pooling window of kernelHeight x kernelWidth stepping by (strideY, strideX).
    public init(
        kind: Kind, kernelHeight: Int, kernelWidth: Int, strideY: Int, strideX: Int, padding: Padding2D = .zero, countIncludesPadding: Bool = false
    ) {
        self.kind = kind
        self.kernelHeight = kernelHeight
        self.kernelWidth = kernelWidth
        self.strideY = strideY
        self.strideX = strideX
        self.padding = padding
        self.countIncludesPadding = countIncludesPadding
    }
}
