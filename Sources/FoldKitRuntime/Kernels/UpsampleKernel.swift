import FoldKitCore

/// Nearest-neighbour upsampling (Darknet [upsample], Keras UpSampling2D 'nearest'; bilinear is
/// `BilinearUpsampleKernel`):
/// out[c, y, x] = scale * in[c, y / strideY, x / strideX].
///
/// Row by row: input row iy of channel c gives output row iy*sy (each element repeated sx times, times
/// scale), which is then copied to rows iy*sy + 1 ..< (iy + 1)*sy; rows are shared between the cores.
struct UpsampleKernel<Scalar: ExecutorScalar>: LayerKernel {
    let upsample: Upsample
    let input: ActivationShape

    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    func forward(_ inputs: [[Scalar]], into output: UnsafeMutableBufferPointer<Scalar>, scratch: UnsafeMutableBufferPointer<Scalar>) {
        let sy = upsample.strideY, sx = upsample.strideX
        let inW = input.width, outW = inW * sx
        let rows = input.channels * input.height
        guard let out = output.baseAddress, output.count >= rows * sy * outW, sy > 0, sx > 0 else { return }
        let scale = Scalar(upsample.scale)
        inputs[0].withUnsafeBufferPointer { source in
            guard let base = source.baseAddress, source.count >= rows * inW else { return }
            // Input row r = c*H + iy maps to output rows r*sy ..< (r + 1)*sy (c*outH + iy*sy = r*sy).
            Parallel.forRanges(rows, totalWork: rows * sy * outW) { range in
                for r in range {
                    let src = base + r * inW
                    let first = out + r * sy * outW
                    Self.widen(src, into: first, count: inW, stride: sx, scale: scale)
                    for j in 1..<max(1, sy) { (first + j * outW).update(from: first, count: outW) }
                }
            }
        }
    }

    /// dst[x*stride + k] = scale * src[x] for x in 0..<count, k in 0..<stride.
    @inline(__always)
    private static func widen(_ src: UnsafePointer<Scalar>, into dst: UnsafeMutablePointer<Scalar>, count: Int, stride: Int, scale: Scalar) {
        switch (stride, scale == 1) {
        case (1, true): dst.update(from: src, count: count)
        case (2, true):
            for x in 0..<count {
                let value = src[x]
                dst[2 * x] = value
                dst[2 * x + 1] = value
            }
        case (2, false):
            for x in 0..<count {
                let value = scale * src[x]
                dst[2 * x] = value
                dst[2 * x + 1] = value
            }
        default:
            for x in 0..<count {
                let value = scale == 1 ? src[x] : scale * src[x]
                for k in 0..<stride { dst[x * stride + k] = value }
            }
        }
    }
}
