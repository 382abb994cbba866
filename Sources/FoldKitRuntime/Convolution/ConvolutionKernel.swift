import FoldKitCore

/// 2-D convolution as `Convolution` documents it: zero padding (asymmetric allowed), stride, dilation,
/// groups; then bias, batch norm (unfolded networks) and the activation (`ChannelEpilogue`).
///
/// Three paths, chosen once at init:
/// - pointwise (1x1, stride 1, no padding): out_g = W_g (O/g x I/g) * in_g (I/g x H*W), one GEMM per group,
///   straight on the input;
/// - depthwise (groups == in == out): a direct kernel, one channel per task, accumulating one kernel tap
///   at a time over contiguous rows;
/// - 3x3 stride 1 ungrouped with enough input channels (`WinogradF2Convolution.applies`): Winograd
///   F(4x4, 3x3) (`WinogradF4Convolution`) on large outputs, F(2x2, 3x3) (`WinogradF2Convolution`) below;
/// - otherwise im2col per group into a reused scratch matrix ((I/g)*kh*kw x OH*OW, row
///   r = (i*kh + ky)*kw + kx; `Im2Col.swift`), then out_g = W_g * columns; in blocks of output rows,
///   one scratch block per core, when the weights are small and the columns large (`Im2ColSchedule`).
///
/// Reading one convolution, in order: this file (the path and the epilogue of each product part);
/// `ConvolutionGeometry.swift` (output size, padding, the im2col gather); for Winograd layers
/// `Winograd/WinogradLayer.swift` (one pass), `WinogradSchedule.swift` (cores and blocks) and the variant
/// (`WinogradF2Convolution` / `WinogradF4Convolution`, tile math only); `../BLAS/GEMM.swift` for the
/// product; `../Elementwise/ChannelEpilogue.swift` for bias, batch norm and activation.
struct ConvolutionKernel<Scalar: ExecutorScalar>: LayerKernel {
    enum Path { case pointwise, depthwise, im2col, winograd, winogradF4 }

    let geometry: ConvolutionGeometry
    let weights: [Scalar]
    let epilogue: ChannelEpilogue<Scalar>
    let path: Path
    /// Set when `path == .winograd` (`WinogradF2Convolution.applies`).
    let winograd: WinogradLayer<WinogradF2Convolution<Scalar>>?
    /// Set when `path == .winogradF4` (`WinogradF4Convolution.applies`).
    let winogradF4: WinogradLayer<WinogradF4Convolution<Scalar>>?
    /// Products cut into one BLAS call per core (`ProductThreading.splitAcrossCores`).
    let splitsProducts: Bool

    init(_ conv: Convolution, input: ActivationShape, output: ActivationShape, layer: Layer, options: ExecutorOptions) throws {
        let geometry = ConvolutionGeometry(conv, input: input, output: output)
        self.geometry = geometry
        let count = conv.outputChannels * (conv.inputChannels / conv.groups) * conv.kernelHeight * conv.kernelWidth
        epilogue = ChannelEpilogue(
            bias: try conv.bias.map {
                try scalarParameters(
                    $0, count: conv.outputChannels, role: .bias, layer: layer, roundToHalf: options.float16Storage, perturbation: options.perturbation
                )
            },
            batchNorm: try conv.batchNorm.map { try PreparedBatchNorm($0, channels: conv.outputChannels, layer: layer) },
            activation: conv.activation)
        path = Self.path(for: conv, geometry: geometry)
        let splitsProducts = options.productThreading == .splitAcrossCores
        if path == .winograd || path == .winogradF4 {
            // The Winograd paths keep only what they multiply by: no Scalar copy of the weights.
            let floats: [Float] = try scalarParameters(
                conv.weights, count: count, role: .weights, layer: layer, roundToHalf: options.float16Storage, perturbation: options.perturbation)
            weights = []
            winograd =
                path == .winograd
                ? WinogradLayer(geometry: geometry, weights: floats, precompute: !options.streamParameters, splitsProducts: splitsProducts) : nil
            winogradF4 =
                path == .winogradF4
                ? WinogradLayer(geometry: geometry, weights: floats, precompute: !options.streamParameters, splitsProducts: splitsProducts) : nil
        } else {
            weights = try scalarParameters(
                conv.weights, count: count, role: .weights, layer: layer, roundToHalf: options.float16Storage, perturbation: options.perturbation)
            winograd = nil
            winogradF4 = nil
        }
        scratchCount = Self.scratchCount(path: path, geometry: geometry, options: options)
        self.splitsProducts = splitsProducts
        im2colSchedule = Im2ColSchedule(geometry: geometry, scalarBytes: MemoryLayout<Scalar>.stride)
    }

    /// The path a convolution of this geometry takes (see the type's documentation).
    static func path(for conv: Convolution, geometry: ConvolutionGeometry) -> Path {
        if conv.groups == conv.inputChannels && conv.groups == conv.outputChannels && conv.groups > 1 { return .depthwise }
        if WinogradF4Convolution<Scalar>.applies(to: geometry) { return .winogradF4 }
        if WinogradF2Convolution<Scalar>.applies(to: geometry) { return .winograd }
        if conv.kernelHeight == 1 && conv.kernelWidth == 1 && conv.strideX == 1 && conv.strideY == 1 && conv.padding == .zero { return .pointwise }
        return .im2col
    }

    /// Scratch elements a layer of this geometry needs, known before its parameters are read (the executor
    /// sizes its scratch buffer once from these, also when parameters stream): im2col's column matrix, or
    /// Winograd's tiles (and its transformed weights when they are computed at run time).
    static func scratchCount(path: Path, geometry: ConvolutionGeometry, options: ExecutorOptions) -> Int {
        switch path {
        case .im2col:
            let schedule = Im2ColSchedule(geometry: geometry, scalarBytes: MemoryLayout<Scalar>.stride)
            if schedule.blockCount > 1 { return schedule.blockElements * Parallel.workerCount }
            return geometry.columnRows * geometry.output.planeSize
        case .winograd:
            return WinogradF2Convolution<Scalar>.scratchCount(
                geometry: geometry, transformsWeightsInForward: options.streamParameters,
                splitsProducts: options.productThreading == .splitAcrossCores)
        case .winogradF4:
            return WinogradF4Convolution<Scalar>.scratchCount(
                geometry: geometry, transformsWeightsInForward: options.streamParameters,
                splitsProducts: options.productThreading == .splitAcrossCores)
        case .pointwise, .depthwise: return 0
        }
    }

    let scratchCount: Int
    /// Blocks of the im2col path (`Im2ColSchedule`; one block: the whole column matrix).
    let im2colSchedule: Im2ColSchedule

    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    func forward(_ inputs: [[Scalar]], into output: UnsafeMutableBufferPointer<Scalar>, scratch: UnsafeMutableBufferPointer<Scalar>) {
        guard let out = output.baseAddress else { return }
        let g = geometry
        if path == .winograd || path == .winogradF4 {
            inputs[0].withUnsafeBufferPointer { inputBuffer in
                guard let input = inputBuffer.baseAddress, let work = scratch.baseAddress else { return }
                // The Winograd paths apply the epilogue themselves, piece by piece while it is in cache.
                winograd?.forward(input: input, output: out, scratch: work, epilogue: epilogue)
                winogradF4?.forward(input: input, output: out, scratch: work, epilogue: epilogue)
            }
            return
        }
        inputs[0].withUnsafeBufferPointer { inputBuffer in
            weights.withUnsafeBufferPointer { weightBuffer in
                guard let input = inputBuffer.baseAddress, let w = weightBuffer.baseAddress else { return }
                let m = g.outputChannelsPerGroup, n = g.output.planeSize, k = g.columnRows
                switch path {
                case .depthwise:
                    depthwise(input: input, weights: w, output: out)
                    epilogue.apply(to: output, channels: g.output.channels, planeSize: g.output.planeSize)
                case .pointwise:
                    let planeIn = g.input.planeSize
                    for group in 0..<g.groups {
                        Scalar.gemm(
                            transposeA: false, transposeB: false, m: m, n: n, k: k, alpha: 1,
                            a: w + group * m * k, lda: k, b: input + group * g.inputChannelsPerGroup * planeIn, ldb: n,
                            beta: 0, c: out + group * m * n, ldc: n, splitAcrossCores: splitsProducts,
                            finishPart: finishing(output, firstChannel: group * m))
                    }
                case .winograd, .winogradF4:
                    break  // handled above
                case .im2col:
                    guard let columns = scratch.baseAddress else { return }
                    if im2colSchedule.blockCount > 1 {
                        im2colInBlocks(input: input, weights: w, output: output, scratch: columns)
                        return
                    }
                    for group in 0..<g.groups {
                        g.im2col(source: input, firstChannel: group * g.inputChannelsPerGroup, into: columns)
                        Scalar.gemm(
                            transposeA: false, transposeB: false, m: m, n: n, k: k, alpha: 1,
                            a: w + group * m * k, lda: k, b: UnsafePointer(columns), ldb: n,
                            beta: 0, c: out + group * m * n, ldc: n, splitAcrossCores: splitsProducts,
                            finishPart: finishing(output, firstChannel: group * m))
                    }
                }
            }
        }
    }

    /// The im2col path in blocks of output rows (`Im2ColSchedule`), blocks shared between the cores: for
    /// each group and block, the block's columns into the core's own scratch slice, then
    /// out_g[:, oy0*OW..<oy1*OW] = W_g * block (single-threaded product, ldc = OH*OW) and its epilogue.
    /// Every output element gets the same sum as from the whole column matrix.
    private func im2colInBlocks(
        input: UnsafePointer<Scalar>, weights w: UnsafePointer<Scalar>, output: UnsafeMutableBufferPointer<Scalar>,
        scratch: UnsafeMutablePointer<Scalar>
    ) {
        guard let out = output.baseAddress else { return }
        let g = geometry, schedule = im2colSchedule
        let m = g.outputChannelsPerGroup, n = g.output.planeSize, k = g.columnRows
        let tasks = g.groups * schedule.blockCount
        Parallel.forChunks(tasks, totalWork: g.groups * m * n * k) { chunk, range in
            let block = scratch + chunk * schedule.blockElements
            for task in range {
                let group = task / schedule.blockCount
                let rows = schedule.outputRows(ofBlock: task % schedule.blockCount, height: g.output.height)
                let firstColumn = rows.lowerBound * g.output.width, columns = rows.count * g.output.width
                g.im2col(source: input, firstChannel: group * g.inputChannelsPerGroup, outputRows: rows, into: block)
                Scalar.gemm(
                    transposeA: false, transposeB: false, m: m, n: columns, k: k, alpha: 1,
                    a: w + group * m * k, lda: k, b: UnsafePointer(block), ldb: columns,
                    beta: 0, c: out + group * m * n + firstColumn, ldc: n, splitAcrossCores: false,
                    finishPart: finishing(output, firstChannel: group * m, firstColumn: firstColumn))
            }
        }
    }

    /// The epilogue for the blocks of one group's product (rows = that group's output channels from
    /// `firstChannel`, columns = positions in the output plane counted from `firstColumn`), applied by
    /// `gemm` to each block as soon as it is computed, on the core that computed it: the same operations on
    /// every element as one `ChannelEpilogue.apply` pass over the output afterwards, without that serial pass.
    private func finishing(
        _ output: UnsafeMutableBufferPointer<Scalar>, firstChannel: Int, firstColumn: Int = 0
    ) -> (Range<Int>, Range<Int>) -> Void {
        let planeSize = geometry.output.planeSize
        return { rows, columns in
            for row in rows {
                let channel = firstChannel + row
                let start = channel * planeSize + firstColumn
                epilogue.apply(
                    channel: channel,
                    to: UnsafeMutableBufferPointer(
                        rebasing: output[(start + columns.lowerBound)..<(start + columns.upperBound)]))
            }
        }
    }

    /// out[c, oy, ox] = sum_{ky,kx} W[c, ky, kx] * in[c, oy*sy - pt + ky*dy, ox*sx - pl + kx*dx].
    private func depthwise(input: UnsafePointer<Scalar>, weights: UnsafePointer<Scalar>, output: UnsafeMutablePointer<Scalar>) {
        let g = geometry
        let taps = g.kernelHeight * g.kernelWidth
        let planeIn = g.input.planeSize, planeOut = g.output.planeSize
        Parallel.forEach(g.output.channels, totalWork: g.output.count * taps) { c in
            let src = input + c * planeIn
            let dst = output + c * planeOut
            dst.update(repeating: 0, count: planeOut)
            for ky in 0..<g.kernelHeight {
                for kx in 0..<g.kernelWidth {
                    let wv = weights[c * taps + ky * g.kernelWidth + kx]
                    let span = g.validColumns(kx: kx)
                    if span.start >= span.end { continue }
                    let offX = kx * g.dilationX - g.padLeft
                    for oy in 0..<g.output.height {
                        let iy = oy * g.strideY - g.padTop + ky * g.dilationY
                        if iy < 0 || iy >= g.input.height { continue }
                        let row = dst + oy * g.output.width
                        let s = src + iy * g.input.width + offX
                        if g.strideX == 1 {
                            for ox in span.start..<span.end { row[ox] += wv * s[ox] }
                        } else {
                            let sx = g.strideX
                            for ox in span.start..<span.end { row[ox] += wv * s[ox * sx] }
                        }
                    }
                }
            }
        }
    }
}
