/// 3x3, stride 1, dilation 1, ungrouped convolution by Winograd's minimal filtering F(4x4, 3x3)
/// (Lavin & Gray 2015): 36 multiplications per 4x4 output tile and input channel instead of 144
/// (F(2x2, 3x3), `WinogradF2Convolution`, needs 64 for the same 16 outputs).
///
/// With the 6x6 input patch d of tile (ty, tx) (input rows 4ty - pt ..< 4ty - pt + 6, columns
/// 4tx - pl ..< 4tx - pl + 6, zero outside) and the 3x3 kernel g of (o, c):
///   V[c](t) = Bt d B,  U[o, c] = G g Gt,  M[o](t) = sum_c U[o, c] (.) V[c](t),  Y[o](t) = At M At^T
/// with
///   Bt = [[4,0,-5,0,1,0],[0,-4,-4,1,1,0],[0,4,-4,-1,1,0],[0,-2,-1,2,1,0],[0,2,-1,-2,1,0],[0,4,0,-5,0,1]]
///   G  = [[1/4,0,0],[-1/6,-1/6,-1/6],[-1/6,1/6,-1/6],[1/24,1/12,1/6],[1/24,-1/12,1/6],[0,0,1]]
///   At = [[1,1,1,1,1,0],[0,1,-1,2,-2,0],[0,1,1,4,4,0],[0,1,-1,8,-8,1]]
/// The sum over c is 36 GEMMs, one per element k of the 6x6 transform:
/// M_k (O x T) = U_k (O x C) * V_k (C x T), T = ceil(OH/4) * ceil(OW/4) tiles.
///
/// Precision: the transforms multiply by small integers and G's fractions (U is computed in float64 and
/// rounded once), so the result differs from the direct sum by rounding only, but more of it than
/// F(2x2, 3x3) (its points 0, +-1, +-2 give coefficients up to 8): `ConvolutionKernel` uses it for the
/// float64 reference only, and only on outputs of at least `minimumOutputSide` (see Docs/Performance.md).
///
/// Weights: U is precomputed at init, or computed into the scratch buffer on every pass when parameters
/// stream (`WinogradWeights`, which also runs the 36 GEMMs). Scheduling and epilogue as in
/// `WinogradF2Convolution` (`WinogradSchedule`).
enum WinogradF4Convolution<Scalar: ExecutorScalar>: WinogradVariant {
    /// Between the 26x26 outputs, where F(2x2, 3x3) is the quicker, and the 52x52 ones, where F(4x4, 3x3)
    /// is (per-layer comparison in Docs/Performance.md).
    static var minimumOutputSide: Int { 40 }

    /// Float64 only (the reference pass), for a `WinogradF2Convolution` geometry whose output is at least
    /// `minimumOutputSide` on both sides. In float32 F(4x4, 3x3)'s rounding error is about ten times
    /// F(2x2, 3x3)'s (measured: 1.7e-5 relative on a 64-channel layer, against 2e-6), close to verify's
    /// per-layer budget, and the float32 pass stands in for the device: it keeps F(2x2, 3x3).
    static func applies(to g: ConvolutionGeometry) -> Bool {
        Scalar.self == Double.self && WinogradF2Convolution<Scalar>.applies(to: g)
            && g.output.height >= minimumOutputSide && g.output.width >= minimumOutputSide
    }

    static var outputTileSide: Int { 4 }
    static var points: Int { 36 }
    static var inputWork: Int { 200 }
    static var outputWork: Int { 120 }

    /// One column (or row) of G g: (g0, g1, g2) -> G (g0, g1, g2)^T, six values.
    @inline(__always)
    private static func weightColumn(_ g0: Double, _ g1: Double, _ g2: Double) -> (Double, Double, Double, Double, Double, Double) {
        (g0 / 4, -(g0 + g1 + g2) / 6, -(g0 - g1 + g2) / 6, g0 / 24 + g1 / 12 + g2 / 6, g0 / 24 - g1 / 12 + g2 / 6, g2)
    }

    /// U[k] = G g Gt for every (o, c), k = 6i + j, written to u[(k * O + o) * C + c]; split across cores
    /// (`WinogradWeights.transformInBlocks`).
    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    static func transform(_ w: UnsafeBufferPointer<Float>, outputChannels o: Int, inputChannels c: Int, into u: UnsafeMutablePointer<Scalar>) {
        WinogradWeights<Scalar>.transformInBlocks(w, pairs: o * c, points: 36, block: 128, workPerPair: 160, into: u) { g, t, block, j in
            // Columns of G g (g is row-major 3x3: g[3r + s]).
            let c0 = weightColumn(Double(g[0]), Double(g[3]), Double(g[6]))
            let c1 = weightColumn(Double(g[1]), Double(g[4]), Double(g[7]))
            let c2 = weightColumn(Double(g[2]), Double(g[5]), Double(g[8]))
            @inline(__always) func row(_ i: Int, _ a: Double, _ b: Double, _ cc: Double) {
                let r = weightColumn(a, b, cc)
                let dst = t + (i * 6) * block + j
                dst[0] = Scalar(r.0); dst[block] = Scalar(r.1); dst[2 * block] = Scalar(r.2)
                dst[3 * block] = Scalar(r.3); dst[4 * block] = Scalar(r.4); dst[5 * block] = Scalar(r.5)
            }
            row(0, c0.0, c1.0, c2.0); row(1, c0.1, c1.1, c2.1); row(2, c0.2, c1.2, c2.2)
            row(3, c0.3, c1.3, c2.3); row(4, c0.4, c1.4, c2.4); row(5, c0.5, c1.5, c2.5)
        }
    }

    /// Bt (d0 ... d5)^T.
    @inline(__always)
    private static func inputColumn(_ d0: Scalar, _ d1: Scalar, _ d2: Scalar, _ d3: Scalar, _ d4: Scalar, _ d5: Scalar)
        -> (Scalar, Scalar, Scalar, Scalar, Scalar, Scalar) {
        let a = d4 - 4 * d2, b = d3 - 4 * d1, e = d4 - d2, f = 2 * (d3 - d1)
        return (4 * d0 - 5 * d2 + d4, a + b, a - b, e + f, e - f, 4 * d1 - 5 * d3 + d5)
    }

    /// At (m0 ... m5)^T.
    @inline(__always)
    private static func outputColumn(_ m0: Scalar, _ m1: Scalar, _ m2: Scalar, _ m3: Scalar, _ m4: Scalar, _ m5: Scalar)
        -> (Scalar, Scalar, Scalar, Scalar) {
        let s12 = m1 + m2, d12 = m1 - m2, s34 = m3 + m4, d34 = m3 - m4
        return (m0 + s12 + s34, d12 + 2 * d34, s12 + 4 * s34, d12 + 8 * d34 + m5)
    }

    /// V = Bt d B of input channel c for `tiles` (`WinogradVariant`).
    @inline(__always)
    static func transformInput(
        _ g: ConvolutionGeometry, channel c: Int, tiles: Range<Int>, input: UnsafePointer<Scalar>, into v: UnsafeMutablePointer<Scalar>, pointStride: Int
    ) {
        let tilesAcross = Self.tilesAcross(g)
        let height = g.input.height, width = g.input.width
        let padTop = g.padTop, padLeft = g.padLeft
        let src = input + c * g.input.planeSize
        let stride = pointStride
        withUnsafeTemporaryAllocation(of: Scalar.self, capacity: 36) { patchBuffer in
            guard let p = patchBuffer.baseAddress else { return }
            WinogradSchedule.rowSegments(tiles, across: tilesAcross) { ty, start, end in
                let y0 = ty * 4 - padTop
                for tx in start..<end {
                    let x0 = tx * 4 - padLeft
                    // The 6x6 patch, zero outside the input.
                    if y0 >= 0 && y0 + 6 <= height && x0 >= 0 && x0 + 6 <= width {
                        for i in 0..<6 { (p + 6 * i).update(from: src + (y0 + i) * width + x0, count: 6) }
                    } else {
                        for i in 0..<6 {
                            let y = y0 + i
                            for j in 0..<6 {
                                let x = x0 + j
                                p[6 * i + j] = (y >= 0 && y < height && x >= 0 && x < width) ? src[y * width + x] : 0
                            }
                        }
                    }
                    // Bt d (columns), then (Bt d) B (rows).
                    let e0 = Self.inputColumn(p[0], p[6], p[12], p[18], p[24], p[30])
                    let e1 = Self.inputColumn(p[1], p[7], p[13], p[19], p[25], p[31])
                    let e2 = Self.inputColumn(p[2], p[8], p[14], p[20], p[26], p[32])
                    let e3 = Self.inputColumn(p[3], p[9], p[15], p[21], p[27], p[33])
                    let e4 = Self.inputColumn(p[4], p[10], p[16], p[22], p[28], p[34])
                    let e5 = Self.inputColumn(p[5], p[11], p[17], p[23], p[29], p[35])
                    let dst = v + ty * tilesAcross + tx - tiles.lowerBound
                    @inline(__always) func store(_ i: Int, _ r: (Scalar, Scalar, Scalar, Scalar, Scalar, Scalar)) {
                        let d = dst + (6 * i) * stride
                        d[0] = r.0; d[stride] = r.1; d[2 * stride] = r.2
                        d[3 * stride] = r.3; d[4 * stride] = r.4; d[5 * stride] = r.5
                    }
                    store(0, Self.inputColumn(e0.0, e1.0, e2.0, e3.0, e4.0, e5.0))
                    store(1, Self.inputColumn(e0.1, e1.1, e2.1, e3.1, e4.1, e5.1))
                    store(2, Self.inputColumn(e0.2, e1.2, e2.2, e3.2, e4.2, e5.2))
                    store(3, Self.inputColumn(e0.3, e1.3, e2.3, e3.3, e4.3, e5.3))
                    store(4, Self.inputColumn(e0.4, e1.4, e2.4, e3.4, e4.4, e5.4))
                    store(5, Self.inputColumn(e0.5, e1.5, e2.5, e3.5, e4.5, e5.5))
                }
            }
        }
    }

    /// Y = At M At^T for output channel o's `tiles`, then the epilogue (`WinogradVariant`).
    @inline(__always)
    static func transformOutput(
        _ g: ConvolutionGeometry, channel o: Int, tiles: Range<Int>, from m: UnsafePointer<Scalar>, pointStride: Int,
        into output: UnsafeMutablePointer<Scalar>, epilogue: ChannelEpilogue<Scalar>
    ) {
        let tilesAcross = Self.tilesAcross(g)
        let outH = g.output.height, outW = g.output.width
        let dst = output + o * g.output.planeSize
        let s = pointStride
        WinogradSchedule.rowSegments(tiles, across: tilesAcross) { ty, start, end in
            let y0 = ty * 4
            let rowsLeft = min(4, outH - y0)
            for tx in start..<end {
                let q = m + ty * tilesAcross + tx - tiles.lowerBound
                @inline(__always) func column(_ j: Int) -> (Scalar, Scalar, Scalar, Scalar) {
                    Self.outputColumn(q[j * s], q[(6 + j) * s], q[(12 + j) * s], q[(18 + j) * s], q[(24 + j) * s], q[(30 + j) * s])
                }
                // At M (columns), then (At M) At^T (rows).
                let a0 = column(0), a1 = column(1), a2 = column(2), a3 = column(3), a4 = column(4), a5 = column(5)
                let x0 = tx * 4
                let columnsLeft = min(4, outW - x0)
                @inline(__always) func store(_ r: Int, _ values: (Scalar, Scalar, Scalar, Scalar)) {
                    guard r < rowsLeft else { return }
                    let row = dst + (y0 + r) * outW + x0
                    if columnsLeft == 4 {
                        row[0] = values.0; row[1] = values.1; row[2] = values.2; row[3] = values.3
                    } else {
                        row[0] = values.0
                        if columnsLeft > 1 { row[1] = values.1 }
                        if columnsLeft > 2 { row[2] = values.2 }
                    }
                }
                store(0, Self.outputColumn(a0.0, a1.0, a2.0, a3.0, a4.0, a5.0))
                store(1, Self.outputColumn(a0.1, a1.1, a2.1, a3.1, a4.1, a5.1))
                store(2, Self.outputColumn(a0.2, a1.2, a2.2, a3.2, a4.2, a5.2))
                store(3, Self.outputColumn(a0.3, a1.3, a2.3, a3.3, a4.3, a5.3))
            }
            let first = start * 4, count = min(end * 4, outW) - first
            for r in 0..<rowsLeft {
                epilogue.apply(channel: o, to: UnsafeMutableBufferPointer(start: dst + (y0 + r) * outW + first, count: count))
            }
        }
    }
}
