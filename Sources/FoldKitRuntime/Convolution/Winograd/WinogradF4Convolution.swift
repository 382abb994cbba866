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
/// F(2x2, 3x3) (its points 0, +-1, +-2 give coefficients up to 8). In float32 that moves verify's largest
/// relative deviations from about 1-2e-6 to 2-5e-6 on the seeded Darknet family, the control run (the
/// same kernels on the unfolded network) by as much as the folded run, so the folded / control ratio
/// that verify's tolerance rests on is unchanged (Docs/Performance.md, "Winograd F(4x4) in float32").
///
/// Weights: U is precomputed at init, or computed into the scratch buffer on every pass when parameters
/// stream (`WinogradWeights`, which also runs the 36 GEMMs). Scheduling and epilogue as in
/// `WinogradF2Convolution` (`WinogradSchedule`).
enum WinogradF4Convolution<Scalar: ExecutorScalar>: WinogradVariant {
    /// Five tiles or more across and down (17x17 outputs): F(2x2, 3x3) is the quicker on 13x13 and 14x14
    /// outputs (4 x 4 tiles of 4 pixels: products only 16 tiles wide, and 13 pixels padded to 16), F(4x4, 3x3)
    /// from 19x19 on (per-layer comparison in Docs/Performance.md).
    static var minimumOutputSide: Int { 17 }

    /// A `WinogradF2Convolution` geometry whose output is at least `minimumOutputSide` on both sides, in
    /// float32 and float64 alike.
    static func applies(to g: ConvolutionGeometry) -> Bool {
        WinogradF2Convolution<Scalar>.applies(to: g) && g.output.height >= minimumOutputSide && g.output.width >= minimumOutputSide
    }

    static var outputTileSide: Int { 4 }
    static var points: Int { 36 }
    static var inputWork: Int { 200 }
    static var outputWork: Int { 120 }

    /// U[k] = G g Gt for every (o, c), k = 6i + j, written to u[(k * O + o) * C + c]; split across cores
    /// (`WinogradWeights.transformInBlocks`), in C (`WinogradTransforms.weights`).
    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    static func transform(_ w: UnsafeBufferPointer<Float>, outputChannels o: Int, inputChannels c: Int, into u: UnsafeMutablePointer<Scalar>) {
        WinogradWeights<Scalar>.transformInBlocks(w, pairs: o * c, block: 256, workPerPair: 160, into: u) { g, count, u, planeStride in
            WinogradTransforms.f4.weights(g, pairs: count, into: u, planeStride: planeStride)
        }
    }

    static var transforms: WinogradTransforms { .f4 }
}
