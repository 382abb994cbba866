import FoldKitCore

/// A batch norm that was not folded into a convolution (unfolded networks), per channel of a C x H x W tensor.
struct BatchNormKernel<Scalar: ExecutorScalar>: LayerKernel {
    let batchNorm: PreparedBatchNorm<Scalar>
    let shape: ActivationShape

    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    func forward(_ inputs: [[Scalar]], into output: UnsafeMutableBufferPointer<Scalar>, scratch: UnsafeMutableBufferPointer<Scalar>) {
        inputs[0].withUnsafeBufferPointer { input in _ = output.initialize(from: input) }
        let plane = shape.planeSize
        for c in 0..<shape.channels {
            batchNorm.apply(channel: c, to: UnsafeMutableBufferPointer(rebasing: output[(c * plane)..<((c + 1) * plane)]))
        }
    }
}
