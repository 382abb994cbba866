import FoldKitCore

/// Transposed convolution as `TransposedConvolution` documents it, in two steps per image:
///
/// 1. one GEMM: columns (O*kh*kw x H*W) = W' (O*kh*kw x C_in) * in (C_in x H*W), where row
///    r = (o*kh + ky)*kw + kx of W' is W[o, :, ky, kx] (the weights rearranged once at init: OHWI), so
///    columns[r][iy*W + ix] = sum_i W[o, i, ky, kx] * in[i, iy, ix];
/// 2. col2im, a scatter-add: out[o, iy*sy + ky - offsetY, ix*sx + kx - offsetX] += columns[r][iy*W + ix] for the
///    positions inside the output, taps in the order (ky, kx), then the bias and the activation
///    (`ChannelEpilogue`), one output channel per task while its plane is in cache.
///
/// Positions no input reaches keep 0 + bias. The scratch holds the column matrix.
struct TransposedConvolutionKernel<Scalar: ExecutorScalar>: LayerKernel {
    let input: ActivationShape
    let output: ActivationShape
    let kernelHeight: Int
    let kernelWidth: Int
    let strideY: Int
    let strideX: Int
    let offsetY: Int
    let offsetX: Int
    /// W' = the weights in OHWI: row (o*kh + ky)*kw + kx holds W[o, i, ky, kx] for i = 0 ..< C_in.
    let weights: [Scalar]
    let epilogue: ChannelEpilogue<Scalar>
    /// Per ky: the input rows iy whose output row iy*sy + ky - offsetY lies in the output.
    let inputRows: [Range<Int>]
    /// Per kx: the input columns ix whose output column lies in the output.
    let inputColumns: [Range<Int>]
    /// The product cut into one BLAS call per core (`ProductThreading.splitAcrossCores`).
    let splitsProducts: Bool

    init(_ t: TransposedConvolution, input: ActivationShape, output: ActivationShape, layer: Layer, options: ExecutorOptions) throws {
        self.input = input
        self.output = output
        (kernelHeight, kernelWidth, strideY, strideX, offsetY, offsetX) = (t.kernelHeight, t.kernelWidth, t.strideY, t.strideX, t.offsetY, t.offsetX)
        let (o, i, kh, kw) = (t.outputChannels, t.inputChannels, t.kernelHeight, t.kernelWidth)
        let oihw: [Scalar] = try scalarParameters(
            t.weights, count: o * i * kh * kw, role: .weights, layer: layer, roundToHalf: options.float16Storage, perturbation: options.perturbation)
        weights = [Scalar](unsafeUninitializedCapacity: oihw.count) { buffer, initialized in
            for oc in 0..<o {
                for ic in 0..<i {
                    for ky in 0..<kh {
                        for kx in 0..<kw { buffer[((oc * kh + ky) * kw + kx) * i + ic] = oihw[((oc * i + ic) * kh + ky) * kw + kx] }
                    }
                }
            }
            initialized = oihw.count
        }
        epilogue = ChannelEpilogue(
            bias: try t.bias.map {
                try scalarParameters($0, count: o, role: .bias, layer: layer, roundToHalf: options.float16Storage, perturbation: options.perturbation)
            },
            batchNorm: nil, activation: t.activation)
        inputRows = (0..<kh).map { ky in Self.reaching(inputs: input.height, stride: t.strideY, tap: ky - t.offsetY, outputs: output.height) }
        inputColumns = (0..<kw).map { kx in Self.reaching(inputs: input.width, stride: t.strideX, tap: kx - t.offsetX, outputs: output.width) }
        splitsProducts = options.productThreading == .splitAcrossCores
    }

    /// The inputs j in 0 ..< inputs with 0 <= j*stride + tap < outputs (consecutive, as j*stride grows with j).
    static func reaching(inputs: Int, stride: Int, tap: Int, outputs: Int) -> Range<Int> {
        let valid = (0..<inputs).filter { j in j * stride + tap >= 0 && j * stride + tap < outputs }
        guard let first = valid.first, let last = valid.last else { return 0..<0 }
        return first..<(last + 1)
    }

    /// The column matrix: O*kh*kw rows of H*W.
    var scratchCount: Int { Self.scratchCount(outputChannels: output.channels, kernelHeight: kernelHeight, kernelWidth: kernelWidth, input: input) }

    /// Scratch elements of a transposed convolution, known before its parameters are read (`MemoryPlan`).
    static func scratchCount(outputChannels: Int, kernelHeight: Int, kernelWidth: Int, input: ActivationShape) -> Int {
        outputChannels * kernelHeight * kernelWidth * input.planeSize
    }

    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    func forward(_ inputs: [[Scalar]], into result: UnsafeMutableBufferPointer<Scalar>, scratch: UnsafeMutableBufferPointer<Scalar>) {
        let taps = kernelHeight * kernelWidth, planeIn = input.planeSize, planeOut = output.planeSize
        let rows = output.channels * taps
        guard let out = result.baseAddress, let columns = scratch.baseAddress, scratch.count >= rows * planeIn else { return }
        inputs[0].withUnsafeBufferPointer { source in
            weights.withUnsafeBufferPointer { w in
                guard let a = w.baseAddress, let b = source.baseAddress else { return }
                Scalar.gemm(
                    transposeA: false, transposeB: false, m: rows, n: planeIn, k: input.channels, alpha: 1, a: a, lda: input.channels,
                    b: b, ldb: planeIn, beta: 0, c: columns, ldc: planeIn, splitAcrossCores: splitsProducts)
            }
        }
        let (inW, outW) = (input.width, output.width)
        Parallel.forEach(output.channels, totalWork: rows * planeIn) { o in
            let plane = out + o * planeOut
            plane.update(repeating: 0, count: planeOut)
            for ky in 0..<kernelHeight {
                for kx in 0..<kernelWidth {
                    let row = UnsafePointer(columns + ((o * kernelHeight + ky) * kernelWidth + kx) * planeIn)
                    let span = inputColumns[kx]
                    if span.isEmpty { continue }
                    let shiftX = kx - offsetX
                    for iy in inputRows[ky] {
                        let destination = plane + (iy * strideY + ky - offsetY) * outW + shiftX
                        let values = row + iy * inW
                        if strideX == 1 {
                            for ix in span { destination[ix] += values[ix] }
                        } else {
                            for ix in span { destination[ix * strideX] += values[ix] }
                        }
                    }
                }
            }
            epilogue.apply(channel: o, to: UnsafeMutableBufferPointer(start: plane, count: planeOut))
        }
    }
}
