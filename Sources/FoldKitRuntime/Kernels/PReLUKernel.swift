import FoldKitCore

/// Parametric ReLU: y = x >= 0 ? x : alpha * x, with alpha per channel ([C]) or per element ([C, H, W], channel-major).
struct PReLUKernel<Scalar: ExecutorScalar>: LayerKernel {
    let alpha: [Scalar]
    let shape: ActivationShape

    init(alpha tensor: WeightTensor, shape: ActivationShape, layer: Layer, options: ExecutorOptions) throws {
        let count = tensor.count == shape.count ? shape.count : shape.channels
        alpha = try scalarParameters(
            tensor, count: count, role: .alpha, layer: layer, roundToHalf: options.float16Storage, perturbation: options.perturbation)
        self.shape = shape
    }

    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    func forward(_ inputs: [[Scalar]], into output: UnsafeMutableBufferPointer<Scalar>, scratch: UnsafeMutableBufferPointer<Scalar>) {
        let plane = shape.planeSize
        let perElement = alpha.count == shape.count && shape.count != shape.channels
        inputs[0].withUnsafeBufferPointer { input in
            for c in 0..<shape.channels {
                for i in (c * plane)..<((c + 1) * plane) {
                    let v = input[i]
                    let a = perElement ? alpha[i] : alpha[c]
                    output[i] = v >= 0 ? v : a * v
                }
            }
        }
    }
}
