import FoldKitCore

/// Per-channel y[c] = scale[c] * x[c] + shift[c] over a C x H x W tensor (an unfoldable batch norm after folding).
struct ChannelAffineKernel<Scalar: ExecutorScalar>: LayerKernel {
    let scale: [Scalar]
    let shift: [Scalar]
    let shape: ActivationShape

    init(_ affine: ChannelAffine, shape: ActivationShape, layer: Layer, options: ExecutorOptions) throws {
        scale = try scalarParameters(
            affine.scale, count: shape.channels, role: .scale, layer: layer, roundToHalf: options.float16Storage, perturbation: options.perturbation)
        shift = try scalarParameters(
            affine.shift, count: shape.channels, role: .shift, layer: layer, roundToHalf: options.float16Storage, perturbation: options.perturbation)
        self.shape = shape
    }

    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    func forward(_ inputs: [[Scalar]], into output: UnsafeMutableBufferPointer<Scalar>, scratch: UnsafeMutableBufferPointer<Scalar>) {
        let plane = shape.planeSize
        inputs[0].withUnsafeBufferPointer { input in
            for c in 0..<shape.channels {
                let s = scale[c], t = shift[c]
                for i in (c * plane)..<((c + 1) * plane) { output[i] = s * input[i] + t }
            }
        }
    }
}
