/// Max or average pooling over a kernel window. Output size per axis: (in + padBefore + padAfter - kernel) / stride + 1.
/// The window for output (y, x) starts at (y*strideY - padding.top, x*strideX - padding.left).
/// Max pooling treats padding as -infinity. Average pooling divides by the window area when
/// `countIncludesPadding`, else by the number of in-bounds elements (Keras 'same').
public struct Pooling: Sendable, Hashable {
    public enum Kind: String, Sendable { case max, average }
    public var kind: Kind
    public var kernelHeight: Int
    public var kernelWidth: Int
    public var strideY: Int
    public var strideX: Int
    public var padding: Padding2D
    public var countIncludesPadding: Bool

    public init(kind: Kind, kernelHeight: Int, kernelWidth: Int, strideY: Int, strideX: Int, padding: Padding2D = .zero, countIncludesPadding: Bool = false) {
        self.kind = kind
        self.kernelHeight = kernelHeight
        self.kernelWidth = kernelWidth
        self.strideY = strideY
        self.strideX = strideX
        self.padding = padding
        self.countIncludesPadding = countIncludesPadding
    }
}
