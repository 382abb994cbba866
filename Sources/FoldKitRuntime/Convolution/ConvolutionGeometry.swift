import FoldKitCore

/// The sizes of one convolution, and the im2col rearrangement.
struct ConvolutionGeometry {
    let input: ActivationShape
    let output: ActivationShape
    let kernelHeight: Int, kernelWidth: Int
    let strideY: Int, strideX: Int
    let dilationY: Int, dilationX: Int
    let padTop: Int, padLeft: Int
    let groups: Int

    init(_ conv: Convolution, input: ActivationShape, output: ActivationShape) {
        self.input = input
        self.output = output
        kernelHeight = conv.kernelHeight
        kernelWidth = conv.kernelWidth
        strideY = conv.strideY
        strideX = conv.strideX
        dilationY = conv.dilationY
        dilationX = conv.dilationX
        padTop = conv.padding.top
        padLeft = conv.padding.left
        groups = conv.groups
    }

    var inputChannelsPerGroup: Int { input.channels / groups }
    var outputChannelsPerGroup: Int { output.channels / groups }
    /// Rows of the column matrix: the accumulation length (I/g) * kh * kw.
    var columnRows: Int { inputChannelsPerGroup * kernelHeight * kernelWidth }

    /// Output columns ox whose input column ox*sx - pl + kx*dx lies inside 0..<W.
    @inline(__always)
    func validColumns(kx: Int) -> (start: Int, end: Int) {
        let offset = kx * dilationX - padLeft
        let start = offset >= 0 ? 0 : (-offset + strideX - 1) / strideX
        let last = input.width - 1 - offset
        let end = last < 0 ? 0 : Swift.min(output.width, last / strideX + 1)
        return (Swift.min(start, output.width), end)
    }
}
