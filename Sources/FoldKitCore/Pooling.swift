/// Max or average pooling over a kernel window. Output size per axis: (in + padBefore + padAfter - kernel) / stride + 1.
/// The window for output (y, x) starts at (y*strideY - padding.top, x*strideX - padding.left).
/// Max pooling treats padding as -infinity. Average pooling divides by the window area when
/// `countIncludesPadding`, else by the number of in-bounds elements (Keras 'same').
public struct Pooling: Sendable, Hashable, Codable {
    /// Max or average.
    public enum Kind: String, Sendable, Codable { case max, average }
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

extension Pooling: LayerOperation {
    public var layerKind: LayerKind { .pooling(self) }

    public func typeName(inputShapes: [ActivationShape]) -> String { kind == .max ? "maxpool" : "avgpool" }

    /// (in + padBefore + padAfter - k) / stride + 1 rows and columns of the input's channels.
    public func outputShape(for inputs: [ActivationShape]) throws -> ActivationShape {
        let first = inputs[0]
        try require(strideX >= 1 && strideY >= 1 && kernelWidth >= 1 && kernelHeight >= 1, "pool size and stride must be at least 1")
        return ActivationShape(
            channels: first.channels, height: (first.height + padding.top + padding.bottom - kernelHeight) / strideY + 1,
            width: (first.width + padding.left + padding.right - kernelWidth) / strideX + 1)
    }

    public func describe(into description: inout LayerDescription) {
        description.kernel = [kernelHeight, kernelWidth]
        description.stride = [strideY, strideX]
        description.padding = [padding.top, padding.left, padding.bottom, padding.right]
        if countIncludesPadding { description.countIncludesPadding = true }
    }

    public func accumulationLength(inputShapes: [ActivationShape], outputShape: ActivationShape) -> Int {
        // Saturating: a window of two 32-bit sides fits, larger ones (a hostile file) must not trap.
        kind == .average ? kernelHeight.multipliedReportingOverflow(by: kernelWidth).overflow ? .max : kernelHeight * kernelWidth : 1
    }

    public var deviationCarry: DeviationCarry? { .unchanged }
}
