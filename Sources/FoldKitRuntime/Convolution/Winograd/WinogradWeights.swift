/// The transformed weights of a Winograd convolution and its per-point products, shared by
/// F(2x2, 3x3) (`WinogradF2Convolution`, 16 points) and F(4x4, 3x3) (`WinogradF4Convolution`, 36 points).
///
/// U is `points` row-major O x C matrices, U[(k * O + o) * C + c]; `multiply` computes, for every point k,
/// M_k (O x n) = U_k (O x C) * V_k (C x n) by GEMM, with V as `points` C x n matrices and M as `points`
/// O x n matrices (n tiles: all of them, or a block, see `WinogradSchedule`). With `precompute` (repeated
/// passes) U is computed once at init and the OIHW weights are not kept; otherwise
/// (`ExecutorOptions.streamParameters`, one pass in bounded memory) the weights are kept as read and U is
/// computed into the caller's scratch on every pass (`withTransformed`), so no per-layer array is faulted in.
struct WinogradWeights<Scalar: ExecutorScalar> {
    /// Writes U for O x C x 3 x 3 weights: (weights, O, C, destination of points * O * C values).
    typealias Transform = (UnsafeBufferPointer<Float>, Int, Int, UnsafeMutablePointer<Scalar>) -> Void

    let points: Int
    let outputChannels: Int
    let inputChannels: Int
    /// U when precomputed, else empty.
    private let transformed: [Scalar]
    /// The OIHW weights when U is computed on every pass (`withTransformed`), else empty.
    private let weights: [Float]
    private let transform: Transform

    init(weights: [Float], points: Int, outputChannels: Int, inputChannels: Int, precompute: Bool, transform: @escaping Transform) {
        self.points = points
        self.outputChannels = outputChannels
        self.inputChannels = inputChannels
        self.transform = transform
        if precompute {
            let count = points * outputChannels * inputChannels
            transformed = [Scalar](unsafeUninitializedCapacity: count) { u, initialized in
                weights.withUnsafeBufferPointer { w in
                    if let u = u.baseAddress { transform(w, outputChannels, inputChannels, u) }
                }
                initialized = count
            }
            self.weights = []
        } else {
            transformed = []
            self.weights = weights
        }
    }

    /// Scratch elements `withTransformed` needs for U: points * O * C when it computes U, else 0.
    static func scratchCount(points: Int, outputChannels: Int, inputChannels: Int, transformsInForward: Bool) -> Int {
        transformsInForward ? points * outputChannels * inputChannels : 0
    }

    /// Calls `body` with U: the precomputed matrices, or U computed into `scratch` (points * O * C elements)
    /// when it is not precomputed.
    @_specialize(where Scalar == Float, R == Void)
    @_specialize(where Scalar == Double, R == Void)
    func withTransformed<R>(scratch: UnsafeMutablePointer<Scalar>, _ body: (UnsafePointer<Scalar>) -> R) -> R {
        // (An empty array's base address is not reliably nil: test the count.)
        if transformed.isEmpty {
            weights.withUnsafeBufferPointer { transform($0, outputChannels, inputChannels, scratch) }
            return body(UnsafePointer(scratch))
        }
        return transformed.withUnsafeBufferPointer { precomputed in
            body(precomputed.baseAddress ?? UnsafePointer(scratch))
        }
    }

    /// M_k = U_k V_k for k in 0..<points and n tiles: U_k at u + k * O * C (O x C), V_k at v + k * C * n (C x n),
    /// M_k at m + k * O * n: O x n, or with `transposed` M_k^T (n x O) = V_k^T U_k^T (`WinogradSchedule.transposesProducts`).
    ///
    /// `splitAcrossCores`: when FoldKit splits products itself (`ProductThreading.splitAcrossCores`), the points
    /// are shared out, each core running whole single-threaded products for its run of points (one fork and
    /// join for all 16 or 36 products instead of one per product, which on small layers cost more than the
    /// products: Docs/Performance.md); otherwise each product is threaded by `ExecutorScalar.gemm`.
    @inline(__always)
    func multiply(
        u: UnsafePointer<Scalar>, v: UnsafePointer<Scalar>, into m: UnsafeMutablePointer<Scalar>, tiles n: Int, splitAcrossCores: Bool,
        transposed: Bool = false
    ) {
        let o = outputChannels, c = inputChannels
        @inline(__always) func product(_ k: Int, splitAcrossCores: Bool) {
            if transposed {
                Scalar.gemm(
                    transposeA: true, transposeB: true, m: n, n: o, k: c, alpha: 1,
                    a: v + k * c * n, lda: n, b: u + k * o * c, ldb: c,
                    beta: 0, c: m + k * o * n, ldc: o, splitAcrossCores: false)
            } else {
                Scalar.gemm(
                    transposeA: false, transposeB: false, m: o, n: n, k: c, alpha: 1,
                    a: u + k * o * c, lda: c, b: v + k * c * n, ldb: n,
                    beta: 0, c: m + k * o * n, ldc: n, splitAcrossCores: splitAcrossCores)
            }
        }
        if transposed || splitAcrossCores {
            Parallel.forRanges(points, totalWork: points * o * c * n) { range in
                for k in range { product(k, splitAcrossCores: false) }
            }
        } else {
            for k in 0..<points { product(k, splitAcrossCores: false) }
        }
    }

    /// Writes U for all `pairs` (o, c) pairs of O x C x 3 x 3 weights `w` into u[(k * pairs) + pair], split
    /// across cores in runs of whole blocks of `block` pairs: `transformRun(weights, count, u, planeStride)`
    /// transforms `count` consecutive pairs whose taps start at `weights`, writing point k of the run's pair j
    /// to u[k * planeStride + j] (`WinogradTransforms.weights`).
    @inline(__always)
    static func transformInBlocks(
        _ w: UnsafeBufferPointer<Float>, pairs: Int, block: Int, workPerPair: Int, into u: UnsafeMutablePointer<Scalar>,
        _ transformRun: (UnsafePointer<Float>, Int, UnsafeMutablePointer<Scalar>, Int) -> Void
    ) {
        guard let base = w.baseAddress, w.count >= 9 * pairs else { return }
        let blocks = (pairs + block - 1) / block
        Parallel.forRanges(blocks, totalWork: pairs * workPerPair) { range in
            let first = range.lowerBound * block, end = min(pairs, range.upperBound * block)
            transformRun(base + first * 9, end - first, u + first, pairs)
        }
    }
}
