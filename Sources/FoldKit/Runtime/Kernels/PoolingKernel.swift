/// Max or average pooling as `Pooling` documents it. The window of output (oy, ox) covers input rows
/// oy*sy - pt ..< oy*sy - pt + kh and columns ox*sx - pl ..< ox*sx - pl + kw; positions outside the
/// input are padding: -infinity for max, left out of the sum for average, which divides by kh*kw when
/// `countIncludesPadding`, else by the number of positions inside the input.
///
/// Darknet's usual 2x2 stride-2 max pool (no top/left padding) takes a branch-free loop wherever the
/// window lies inside the input: best = max(max(max(a0, a1), b0), b1) with max(v, best) = v > best ? v : best,
/// the same comparisons in the same order as the general loop (which starts from -infinity).
struct PoolingKernel<Scalar: ExecutorScalar>: LayerKernel {
    let pooling: Pooling
    let input: ActivationShape
    let output: ActivationShape

    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    func forward(_ inputs: [[Scalar]], into result: UnsafeMutableBufferPointer<Scalar>, scratch: UnsafeMutableBufferPointer<Scalar>) {
        let p = pooling
        let planeIn = input.planeSize, planeOut = output.planeSize
        let area = Scalar(p.kernelHeight * p.kernelWidth)
        let halving = p.kind == .max && p.kernelHeight == 2 && p.kernelWidth == 2 && p.strideY == 2 && p.strideX == 2
            && p.padding.top == 0 && p.padding.left == 0
        // Outputs whose 2x2 window lies inside the input (for `halving`).
        let insideRows = Swift.min(output.height, input.height / 2), insideColumns = Swift.min(output.width, input.width / 2)
        inputs[0].withUnsafeBufferPointer { source in
            Parallel.forEach(output.channels, totalWork: output.count * p.kernelHeight * p.kernelWidth) { c in
                let src = UnsafeBufferPointer(rebasing: source[(c * planeIn)..<((c + 1) * planeIn)])
                let dstBase = c * planeOut
                for oy in 0..<output.height {
                    let y0 = oy * p.strideY - p.padding.top
                    let yStart = Swift.max(y0, 0), yEnd = Swift.min(y0 + p.kernelHeight, input.height)
                    var firstColumn = 0
                    if halving && oy < insideRows, let base = src.baseAddress, let out = result.baseAddress {
                        let upper = base + 2 * oy * input.width, lower = upper + input.width
                        let row = out + dstBase + oy * output.width
                        for ox in 0..<insideColumns {
                            var best = -Scalar.infinity
                            best = upper[2 * ox] > best ? upper[2 * ox] : best
                            best = upper[2 * ox + 1] > best ? upper[2 * ox + 1] : best
                            best = lower[2 * ox] > best ? lower[2 * ox] : best
                            best = lower[2 * ox + 1] > best ? lower[2 * ox + 1] : best
                            row[ox] = best
                        }
                        firstColumn = insideColumns
                    }
                    for ox in firstColumn..<output.width {
                        let x0 = ox * p.strideX - p.padding.left
                        let xStart = Swift.max(x0, 0), xEnd = Swift.min(x0 + p.kernelWidth, input.width)
                        let value: Scalar
                        switch p.kind {
                        case .max:
                            var best = -Scalar.infinity
                            if xStart < xEnd {
                                for y in yStart..<Swift.max(yStart, yEnd) {
                                    let row = y * input.width
                                    for x in xStart..<xEnd where src[row + x] > best { best = src[row + x] }
                                }
                            }
                            value = best
                        case .average:
                            var sum: Scalar = 0
                            var count = 0
                            if xStart < xEnd {
                                for y in yStart..<Swift.max(yStart, yEnd) {
                                    let row = y * input.width
                                    for x in xStart..<xEnd { sum += src[row + x] }
                                    count += xEnd - xStart
                                }
                            }
                            value = p.countIncludesPadding ? sum / area : (count > 0 ? sum / Scalar(count) : 0)
                        }
                        result[dstBase + oy * output.width + ox] = value
                    }
                }
            }
        }
    }
}
