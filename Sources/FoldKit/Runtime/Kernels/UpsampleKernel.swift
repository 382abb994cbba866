/// Nearest-neighbour upsampling (Darknet [upsample], Keras UpSampling2D):
/// out[c, y, x] = scale * in[c, y / strideY, x / strideX].
struct UpsampleKernel<Scalar: ExecutorScalar>: LayerKernel {
    let upsample: Upsample
    let input: ActivationShape

    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    func forward(_ inputs: [[Scalar]], into output: UnsafeMutableBufferPointer<Scalar>, scratch: UnsafeMutableBufferPointer<Scalar>) {
        let sy = upsample.strideY, sx = upsample.strideX
        let outW = input.width * sx, outH = input.height * sy
        let scale = Scalar(upsample.scale)
        inputs[0].withUnsafeBufferPointer { source in
            for c in 0..<input.channels {
                for y in 0..<outH {
                    let src = (c * input.height + y / sy) * input.width
                    let dst = (c * outH + y) * outW
                    if scale == 1 {
                        for x in 0..<outW { output[dst + x] = source[src + x / sx] }
                    } else {
                        for x in 0..<outW { output[dst + x] = scale * source[src + x / sx] }
                    }
                }
            }
        }
    }
}
