import FoldKitCore

/// Zero padding (Keras ZeroPadding2D) and cropping (Keras Cropping2D, Darknet [crop]) of every channel:
/// pad: out[c, y + top, x + left] = in[c, y, x], zeros elsewhere;
/// crop: out[c, y, x] = in[c, y + top, x + left] * scale + shift (scale 1 and shift 0: a plain copy).
struct PadCropKernel<Scalar: ExecutorScalar>: LayerKernel {
    enum Mode {
        case pad
        case crop(scale: Scalar, shift: Scalar)
    }
    let mode: Mode
    let edges: Padding2D
    let input: ActivationShape
    let output: ActivationShape

    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    func forward(_ inputs: [[Scalar]], into result: UnsafeMutableBufferPointer<Scalar>, scratch: UnsafeMutableBufferPointer<Scalar>) {
        inputs[0].withUnsafeBufferPointer { source in
            switch mode {
            case .pad:
                result.initialize(repeating: 0)
                for c in 0..<input.channels {
                    for y in 0..<input.height {
                        let src = (c * input.height + y) * input.width
                        let dst = (c * output.height + y + edges.top) * output.width + edges.left
                        for x in 0..<input.width { result[dst + x] = source[src + x] }
                    }
                }
            case .crop(let scale, let shift):
                let plain = scale == 1 && shift == 0
                for c in 0..<output.channels {
                    for y in 0..<output.height {
                        let src = (c * input.height + y + edges.top) * input.width + edges.left
                        let dst = (c * output.height + y) * output.width
                        if plain {
                            for x in 0..<output.width { result[dst + x] = source[src + x] }
                        } else {
                            for x in 0..<output.width { result[dst + x] = source[src + x] * scale + shift }
                        }
                    }
                }
            }
        }
    }
}
