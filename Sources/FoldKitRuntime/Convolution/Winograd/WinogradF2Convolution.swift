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
    static var minimumInputChannels: Int { 16 }

    /// Whether a convolution of this geometry takes this path: 3x3, stride 1, dilation 1, one group,
    /// and enough input channels that the 16 GEMMs are worth their transforms.
    static func applies(to g: ConvolutionGeometry) -> Bool {
        g.kernelHeight == 3 && g.kernelWidth == 3 && g.strideY == 1 && g.strideX == 1 && g.dilationY == 1 && g.dilationX == 1
            && g.groups == 1 && g.input.channels >= minimumInputChannels && g.output.height >= 2 && g.output.width >= 2
    }

    /// U[k] = G g Gt for every (o, c), k = 4i + j, written to u[(k * O + o) * C + c]; split across cores
    /// (`WinogradWeights.transformInBlocks`), in C (`WinogradTransforms.weights`).
    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    static func transform(_ w: UnsafeBufferPointer<Float>, outputChannels o: Int, inputChannels c: Int, into u: UnsafeMutablePointer<Scalar>) {
        WinogradWeights<Scalar>.transformInBlocks(w, pairs: o * c, block: 256, workPerPair: 64, into: u) { g, count, u, planeStride in
            WinogradTransforms.f2.weights(g, pairs: count, into: u, planeStride: planeStride)
        }
    }

    static var outputTileSide: Int { 2 }
    static var points: Int { 16 }
    static var inputWork: Int { 64 }
    static var outputWork: Int { 32 }

    static var transforms: WinogradTransforms { .f2 }
}
