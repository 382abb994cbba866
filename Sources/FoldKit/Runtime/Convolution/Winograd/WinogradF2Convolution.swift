/// 3x3, stride 1, dilation 1, ungrouped convolution by Winograd's minimal filtering F(2x2, 3x3)
/// (Lavin & Gray 2015): 16 multiplications per 2x2 output tile and input channel instead of 36.
///
/// With the 4x4 input patch d of tile (ty, tx) (input rows 2ty - pt ..< 2ty - pt + 4, columns
/// 2tx - pl ..< 2tx - pl + 4, zero outside) and the 3x3 kernel g of (o, c):
///   V[c](t) = Bt d B,  U[o, c] = G g Gt,  M[o](t) = sum_c U[o, c] (.) V[c](t),  Y[o](t) = At M At^T
/// with Bt = [[1,0,-1,0],[0,1,1,0],[0,-1,1,0],[0,1,0,-1]], G = [[1,0,0],[1/2,1/2,1/2],[1/2,-1/2,1/2],[0,0,1]],
/// At = [[1,1,1,0],[0,1,-1,-1]]. The sum over c is 16 GEMMs, one per element k of the 4x4 transform:
/// M_k (O x T) = U_k (O x C) * V_k (C x T), T = ceil(OH/2) * ceil(OW/2) tiles.
/// The transforms use only additions and halvings, so the result differs from the direct sum by
/// rounding only (a few units in the last place of the operands' magnitude).
///
/// Weights: U is precomputed at init, or computed into the scratch buffer on every pass when parameters
/// stream (`WinogradWeights`, which also runs the 16 GEMMs). Tiles are transformed, multiplied and
/// transformed back all at once or in blocks per core (`WinogradSchedule`); the bias, batch norm and
/// activation (`ChannelEpilogue`) are applied to each output row piece as soon as it is written.
enum WinogradF2Convolution<Scalar: ExecutorScalar>: WinogradVariant {
    /// Below this many input channels the 16 GEMMs have too short an accumulation (k = C) to pay for the
    /// transforms; the threshold and the per-layer comparison with im2col are in Docs/Performance.md.
    static var minimumInputChannels: Int { 32 }

    /// Whether a convolution of this geometry takes this path: 3x3, stride 1, dilation 1, one group,
    /// and enough input channels that the 16 GEMMs are worth their transforms.
    static func applies(to g: ConvolutionGeometry) -> Bool {
        g.kernelHeight == 3 && g.kernelWidth == 3 && g.strideY == 1 && g.strideX == 1 && g.dilationY == 1 && g.dilationX == 1
            && g.groups == 1 && g.input.channels >= minimumInputChannels && g.output.height >= 2 && g.output.width >= 2
    }

    /// U[k] = G g Gt for every (o, c), k = 4i + j, written to u[(k * O + o) * C + c]; split across cores
    /// (`WinogradWeights.transformInBlocks`).
    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    static func transform(_ w: UnsafeBufferPointer<Float>, outputChannels o: Int, inputChannels c: Int, into u: UnsafeMutablePointer<Scalar>) {
        WinogradWeights<Scalar>.transformInBlocks(w, pairs: o * c, points: 16, block: 256, workPerPair: 64, into: u) { g, t, block, j in
            // Row i of G g (4 x 3), then U row i = that row times Gt.
            @inline(__always) func store(_ i: Int, _ r0: Double, _ r1: Double, _ r2: Double) {
                t[(i * 4) * block + j] = Scalar(r0)
                t[(i * 4 + 1) * block + j] = Scalar(0.5 * (r0 + r1 + r2))
                t[(i * 4 + 2) * block + j] = Scalar(0.5 * (r0 - r1 + r2))
                t[(i * 4 + 3) * block + j] = Scalar(r2)
            }
            let g00 = Double(g[0]), g01 = Double(g[1]), g02 = Double(g[2])
            let g10 = Double(g[3]), g11 = Double(g[4]), g12 = Double(g[5])
            let g20 = Double(g[6]), g21 = Double(g[7]), g22 = Double(g[8])
            store(0, g00, g01, g02)
            store(1, 0.5 * (g00 + g10 + g20), 0.5 * (g01 + g11 + g21), 0.5 * (g02 + g12 + g22))
            store(2, 0.5 * (g00 - g10 + g20), 0.5 * (g01 - g11 + g21), 0.5 * (g02 - g12 + g22))
            store(3, g20, g21, g22)
        }
    }

    static var outputTileSide: Int { 2 }
    static var points: Int { 16 }
    static var inputWork: Int { 64 }
    static var outputWork: Int { 32 }

    /// V = Bt d B of input channel c for `tiles` (`WinogradVariant`).
    @inline(__always)
    static func transformInput(
        _ g: ConvolutionGeometry, channel c: Int, tiles: Range<Int>, input: UnsafePointer<Scalar>, into v: UnsafeMutablePointer<Scalar>, pointStride: Int
    ) {
        let tilesAcross = Self.tilesAcross(g)
        let height = g.input.height, width = g.input.width
        let padTop = g.padTop, padLeft = g.padLeft
        // Tiles tx in interiorX read input columns 2tx - pl ..< 2tx - pl + 4 all inside 0..<W.
        let firstInterior = Swift.min(tilesAcross, (padLeft + 1) / 2)
        let endInterior = width + padLeft < 4 ? firstInterior
            : Swift.max(firstInterior, Swift.min(tilesAcross, (width + padLeft - 4) / 2 + 1))
        let src = input + c * g.input.planeSize
        WinogradSchedule.rowSegments(tiles, across: tilesAcross) { ty, start, end in
            let y0 = ty * 2 - padTop
            let dst = v + ty * tilesAcross - tiles.lowerBound
            let rowsInside = y0 >= 0 && y0 + 4 <= height
            let fast = rowsInside ? Swift.max(start, firstInterior)..<Swift.max(Swift.max(start, firstInterior), Swift.min(end, endInterior)) : start..<start
            if !fast.isEmpty {
                let r0 = src + y0 * width - padLeft, r1 = r0 + width, r2 = r1 + width, r3 = r2 + width
                for tx in fast {
                    let x = tx * 2
                    Self.inputTile(
                        r0[x], r0[x + 1], r0[x + 2], r0[x + 3], r1[x], r1[x + 1], r1[x + 2], r1[x + 3],
                        r2[x], r2[x + 1], r2[x + 2], r2[x + 3], r3[x], r3[x + 1], r3[x + 2], r3[x + 3],
                        dst + tx, pointStride)
                }
            }
            for tx in start..<end where !fast.contains(tx) {
                let x0 = tx * 2 - padLeft
                @inline(__always) func at(_ i: Int, _ j: Int) -> Scalar {
                    let y = y0 + i, x = x0 + j
                    return (y >= 0 && y < height && x >= 0 && x < width) ? src[y * width + x] : 0
                }
                Self.inputTile(
                    at(0, 0), at(0, 1), at(0, 2), at(0, 3), at(1, 0), at(1, 1), at(1, 2), at(1, 3),
                    at(2, 0), at(2, 1), at(2, 2), at(2, 3), at(3, 0), at(3, 1), at(3, 2), at(3, 3),
                    dst + tx, pointStride)
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
        // Tiles whose two output columns both exist.
        let fullAcross = outW / 2
        let s = pointStride
        WinogradSchedule.rowSegments(tiles, across: tilesAcross) { ty, start, end in
            let y = ty * 2
            let mb = m + ty * tilesAcross - tiles.lowerBound
            let row0 = dst + y * outW
            let twoRows = y + 1 < outH
            for tx in start..<end {
                let p = mb + tx
                let m00 = p[0], m01 = p[s], m02 = p[2 * s], m03 = p[3 * s]
                let m10 = p[4 * s], m11 = p[5 * s], m12 = p[6 * s], m13 = p[7 * s]
                let m20 = p[8 * s], m21 = p[9 * s], m22 = p[10 * s], m23 = p[11 * s]
                let m30 = p[12 * s], m31 = p[13 * s], m32 = p[14 * s], m33 = p[15 * s]
                // At M: two rows of four, then times At^T.
                let a0 = m00 + m10 + m20, a1 = m01 + m11 + m21, a2 = m02 + m12 + m22, a3 = m03 + m13 + m23
                let b0 = m10 - m20 - m30, b1 = m11 - m21 - m31, b2 = m12 - m22 - m32, b3 = m13 - m23 - m33
                let x = tx * 2
                row0[x] = a0 + a1 + a2
                if tx < fullAcross { row0[x + 1] = a1 - a2 - a3 }
                if twoRows {
                    row0[outW + x] = b0 + b1 + b2
                    if tx < fullAcross { row0[outW + x + 1] = b1 - b2 - b3 }
                }
            }
            let first = start * 2, count = Swift.min(end * 2, outW) - first
            epilogue.apply(channel: o, to: UnsafeMutableBufferPointer(start: row0 + first, count: count))
            if twoRows { epilogue.apply(channel: o, to: UnsafeMutableBufferPointer(start: row0 + outW + first, count: count)) }
        }
    }

    /// V = Bt d B for one 4x4 patch d (row-major d00...d33), stored as dst[k * stride], k = 4i + j.
    @inline(__always)
    private static func inputTile(
        _ d00: Scalar, _ d01: Scalar, _ d02: Scalar, _ d03: Scalar, _ d10: Scalar, _ d11: Scalar, _ d12: Scalar, _ d13: Scalar,
        _ d20: Scalar, _ d21: Scalar, _ d22: Scalar, _ d23: Scalar, _ d30: Scalar, _ d31: Scalar, _ d32: Scalar, _ d33: Scalar,
        _ dst: UnsafeMutablePointer<Scalar>, _ stride: Int
    ) {
        // Bt d: rows d0 - d2, d1 + d2, d2 - d1, d1 - d3
        let e00 = d00 - d20, e01 = d01 - d21, e02 = d02 - d22, e03 = d03 - d23
        let e10 = d10 + d20, e11 = d11 + d21, e12 = d12 + d22, e13 = d13 + d23
        let e20 = d20 - d10, e21 = d21 - d11, e22 = d22 - d12, e23 = d23 - d13
        let e30 = d10 - d30, e31 = d11 - d31, e32 = d12 - d32, e33 = d13 - d33
        // (Bt d) B: the same combinations of columns
        dst[0] = e00 - e02; dst[stride] = e01 + e02; dst[2 * stride] = e02 - e01; dst[3 * stride] = e01 - e03
        dst[4 * stride] = e10 - e12; dst[5 * stride] = e11 + e12; dst[6 * stride] = e12 - e11; dst[7 * stride] = e11 - e13
        dst[8 * stride] = e20 - e22; dst[9 * stride] = e21 + e22; dst[10 * stride] = e22 - e21; dst[11 * stride] = e21 - e23
        dst[12 * stride] = e30 - e32; dst[13 * stride] = e31 + e32; dst[14 * stride] = e32 - e31; dst[15 * stride] = e31 - e33
    }
}
