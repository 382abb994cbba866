import CWinograd

/// The transforms of a Winograd variant, in C (the `CWinograd` target): the weight transform over runs of
/// kernels, and the input and output transforms of one row of tiles of one channel - loops across kernels
/// or tiles that compile to vector code, with an AVX2 build chosen at run time. They compute the
/// expressions written out in `WinogradF2Convolution` / `WinogradF4Convolution` in the same order as a
/// kernel-by-kernel or tile-by-tile evaluation, so the results are the same to the bit.
///
/// Weights: U = G g Gt of `pairs` consecutive 3x3 kernels (OIHW: pair o * C + c at w[9 * pair]) computed in
/// float64 and rounded once, point k of pair p at u[k * planeStride + p].
///
/// Layout (side s = 2 or 4, n tiles tx0 ..< tx0 + n of tile row ty):
/// - input: one channel's plane (H x W, row-major); tile tx reads rows s*ty - pt ..< s*ty - pt + s + 2 and
///   columns s*tx - pl ..< s*tx - pl + s + 2, zero outside the plane;
/// - V: point k of tile tx0 + t at v[k * pointStride + t]; M: at m[k * pointStride + t * tileStride] (1, or the
///   output channel count when the products were computed transposed: `WinogradWeights.multiply`);
/// - output: pixels (s*ty + r, s*tx0 + x) for r < rowCount, x < columnCount, rows `outputWidth` apart.
enum WinogradTransforms {
    /// F(2x2, 3x3): 4x4 patches, 2x2 output tiles.
    case f2
    /// F(4x4, 3x3): 6x6 patches, 4x4 output tiles.
    case f4

    /// U of `pairs` kernels from w (see the type's layout).
    @inline(__always)
    func weights<Scalar: ExecutorScalar>(_ w: UnsafePointer<Float>, pairs: Int, into u: UnsafeMutablePointer<Scalar>, planeStride: Int) {
        if Scalar.self == Float.self {
            let d = UnsafeMutableRawPointer(u).assumingMemoryBound(to: Float.self)
            switch self {
            case .f2: cwg_f2_weights_f32(w, pairs, d, planeStride)
            case .f4: cwg_f4_weights_f32(w, pairs, d, planeStride)
            }
        } else {
            let d = UnsafeMutableRawPointer(u).assumingMemoryBound(to: Double.self)
            switch self {
            case .f2: cwg_f2_weights_f64(w, pairs, d, planeStride)
            case .f4: cwg_f4_weights_f64(w, pairs, d, planeStride)
            }
        }
    }

    /// V of tiles tx0 ..< tx0 + count of tile row `tileRow`, from channel plane `plane` of `g`'s input.
    @inline(__always)
    func input<Scalar: ExecutorScalar>(
        plane: UnsafePointer<Scalar>, geometry g: ConvolutionGeometry, tileRow: Int, firstTile: Int, count: Int,
        into v: UnsafeMutablePointer<Scalar>, pointStride: Int
    ) {
        let h = g.input.height, w = g.input.width, pt = g.padTop, pl = g.padLeft
        if Scalar.self == Float.self {
            let p = UnsafeRawPointer(plane).assumingMemoryBound(to: Float.self)
            let d = UnsafeMutableRawPointer(v).assumingMemoryBound(to: Float.self)
            switch self {
            case .f2: cwg_f2_input_f32(p, h, w, pt, pl, tileRow, firstTile, count, d, pointStride)
            case .f4: cwg_f4_input_f32(p, h, w, pt, pl, tileRow, firstTile, count, d, pointStride)
            }
        } else {
            let p = UnsafeRawPointer(plane).assumingMemoryBound(to: Double.self)
            let d = UnsafeMutableRawPointer(v).assumingMemoryBound(to: Double.self)
            switch self {
            case .f2: cwg_f2_input_f64(p, h, w, pt, pl, tileRow, firstTile, count, d, pointStride)
            case .f4: cwg_f4_input_f64(p, h, w, pt, pl, tileRow, firstTile, count, d, pointStride)
            }
        }
    }

    /// Output pixels of `count` tiles from M at `m`, written from `rows` (see the type's layout).
    @inline(__always)
    func output<Scalar: ExecutorScalar>(
        m: UnsafePointer<Scalar>, pointStride: Int, tileStride: Int, count: Int, rows: UnsafeMutablePointer<Scalar>, outputWidth: Int,
        rowCount: Int, columnCount: Int
    ) {
        if Scalar.self == Float.self {
            let q = UnsafeRawPointer(m).assumingMemoryBound(to: Float.self)
            let d = UnsafeMutableRawPointer(rows).assumingMemoryBound(to: Float.self)
            switch self {
            case .f2: cwg_f2_output_f32(q, pointStride, tileStride, count, d, outputWidth, rowCount, columnCount)
            case .f4: cwg_f4_output_f32(q, pointStride, tileStride, count, d, outputWidth, rowCount, columnCount)
            }
        } else {
            let q = UnsafeRawPointer(m).assumingMemoryBound(to: Double.self)
            let d = UnsafeMutableRawPointer(rows).assumingMemoryBound(to: Double.self)
            switch self {
            case .f2: cwg_f2_output_f64(q, pointStride, tileStride, count, d, outputWidth, rowCount, columnCount)
            case .f4: cwg_f4_output_f64(q, pointStride, tileStride, count, d, outputWidth, rowCount, columnCount)
            }
        }
    }

    /// Whether the AVX2 build of the loops runs on this CPU.
    static var usesAVX2: Bool { cwg_uses_avx2() != 0 }

    /// Runs `body` with the baseline build forced (for tests comparing both builds).
    static func withBaselineBuild<T>(_ body: () throws -> T) rethrows -> T {
        cwg_force_baseline(1)
        defer { cwg_force_baseline(0) }
        return try body()
    }
}
