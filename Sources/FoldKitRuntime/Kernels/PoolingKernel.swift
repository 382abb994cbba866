import FoldKitCore

/// Max or average pooling as `Pooling` documents it. The window of output (oy, ox) covers input rows
/// oy*sy - pt ..< oy*sy - pt + kh and columns ox*sx - pl ..< ox*sx - pl + kw; positions outside the
/// input are padding: -infinity for max, left out of the sum for average, which divides by kh*kw when
/// `countIncludesPadding`, else by the number of positions inside the input.
///
/// Work is estimated (`Parallel`) on the window clipped to the input: a cfg may declare any 32-bit size
/// (size=2147483647 with its default padding is a valid darknet max pool of a few outputs), and
/// output count x kh x kw would overflow `Int`.
///
/// Darknet's usual 2x2 stride-2 max pool (no top/left padding) takes a branch-free loop wherever the
/// window lies inside the input: best = max(max(max(a0, a1), b0), b1) with max(v, best) = v > best ? v : best,
/// the same comparisons in the same order as the general loop (which starts from -infinity). Stride-1 max
/// pools (Darknet's size=2 stride=1, SPP's 5/9/13 windows) run separably, rows then columns
/// (`maxStrideOne`), with the same results.
struct PoolingKernel<Scalar: ExecutorScalar>: LayerKernel {
    let pooling: Pooling
    let input: ActivationShape
    let output: ActivationShape

    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    func forward(_ inputs: [[Scalar]], into result: UnsafeMutableBufferPointer<Scalar>, scratch: UnsafeMutableBufferPointer<Scalar>) {
        let p = pooling
        let planeIn = input.planeSize, planeOut = output.planeSize
        let area = Scalar(p.kernelHeight) * Scalar(p.kernelWidth)
        let windowRows = Swift.min(p.kernelHeight, input.height), windowColumns = Swift.min(p.kernelWidth, input.width)
        let halving =
            p.kind == .max && p.kernelHeight == 2 && p.kernelWidth == 2 && p.strideY == 2 && p.strideX == 2
            && p.padding.top == 0 && p.padding.left == 0
        // Outputs whose 2x2 window lies inside the input (for `halving`).
        let insideRows = Swift.min(output.height, input.height / 2), insideColumns = Swift.min(output.width, input.width / 2)
        if p.kind == .max && p.strideY == 1 && p.strideX == 1 && (p.kernelHeight > 1 || p.kernelWidth > 1) {
            maxStrideOne(inputs[0], into: result)
            return
        }
        inputs[0].withUnsafeBufferPointer { source in
            Parallel.forEach(output.channels, totalWork: output.count * windowRows * windowColumns) { c in
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

    /// Max pooling with stride 1 (Darknet's size=2 stride=1, the 5/9/13 windows of SPP blocks), separably: the
    /// window maximum along each input row first (tmp[y][ox] = max over x in ox - pl ..< ox - pl + kw inside
    /// the row), then down the columns of those (out[oy][ox] = max over y in oy - pt ..< oy - pt + kh inside
    /// the plane): kh + kw comparisons per output instead of kh * kw. Max is exact, and each stage takes a
    /// value only when it is greater (NaN never is; an empty window stays -infinity), so the result is the
    /// general loop's, element for element.
    private func maxStrideOne(_ source: [Scalar], into result: UnsafeMutableBufferPointer<Scalar>) {
        let p = pooling
        let height = input.height, width = input.width, outH = output.height, outW = output.width
        let planeIn = input.planeSize, planeOut = output.planeSize
        source.withUnsafeBufferPointer { source in
            guard let base = source.baseAddress, let out = result.baseAddress else { return }
            let window = Swift.min(p.kernelHeight, height) + Swift.min(p.kernelWidth, width)
            Parallel.forEach(output.channels, totalWork: output.count * window) { c in
                withUnsafeTemporaryAllocation(of: Scalar.self, capacity: height * outW) { rowMaxima in
                    guard let tmp = rowMaxima.baseAddress else { return }
                    let src = base + c * planeIn, dst = out + c * planeOut
                    for y in 0..<height {
                        let row = src + y * width, maxima = tmp + y * outW
                        for ox in 0..<outW {
                            let x0 = ox - p.padding.left
                            var best = -Scalar.infinity
                            for x in Swift.max(x0, 0)..<Swift.max(Swift.max(x0, 0), Swift.min(x0 + p.kernelWidth, width)) {
                                best = row[x] > best ? row[x] : best
                            }
                            maxima[ox] = best
                        }
                    }
                    for oy in 0..<outH {
                        let y0 = oy - p.padding.top
                        let yStart = Swift.max(y0, 0), yEnd = Swift.max(yStart, Swift.min(y0 + p.kernelHeight, height))
                        let row = dst + oy * outW
                        row.update(repeating: -Scalar.infinity, count: outW)
                        for y in yStart..<yEnd {
                            let maxima = tmp + y * outW
                            for ox in 0..<outW { row[ox] = maxima[ox] > row[ox] ? maxima[ox] : row[ox] }
                        }
                    }
                }
            }
        }
    }
}
