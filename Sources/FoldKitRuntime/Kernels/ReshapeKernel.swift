import FoldKitCore

/// Reshape / flatten (`Reshape`): the input is read in `order` and the output filled in `order`.
/// `.channelsFirst` keeps the channel-major buffer as it is. `.channelsLast` flattens the input as
/// flat[(y*W + x)*C + c] = in[c, y, x] and stores out[c', y', x'] = flat[(y'*W' + x')*C' + c'].
struct ReshapeKernel<Scalar: ExecutorScalar>: LayerKernel {
    let input: ActivationShape
    let target: ActivationShape
    let order: ElementOrder

    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    func forward(_ inputs: [[Scalar]], into output: UnsafeMutableBufferPointer<Scalar>, scratch: UnsafeMutableBufferPointer<Scalar>) {
        inputs[0].withUnsafeBufferPointer { source in
            switch order {
            case .channelsFirst:
                _ = output.initialize(from: source)
            case .channelsLast:
                let (c, h, w) = (input.channels, input.height, input.width)
                let (tc, th, tw) = (target.channels, target.height, target.width)
                for ty in 0..<th {
                    for tx in 0..<tw {
                        for tch in 0..<tc {
                            let flat = (ty * tw + tx) * tc + tch
                            // flat = (y*w + x)*c + ch
                            let ch = flat % c, pixel = flat / c
                            let y = pixel / w, x = pixel % w
                            output[(tch * th + ty) * tw + tx] = source[(ch * h + y) * w + x]
                        }
                    }
                }
            }
        }
    }
}
