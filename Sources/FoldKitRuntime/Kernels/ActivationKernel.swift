import FoldKitCore

/// A standalone activation layer.
struct ActivationKernel<Scalar: ExecutorScalar>: LayerKernel {
    let activation: Activation

    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    func forward(_ inputs: [[Scalar]], into output: UnsafeMutableBufferPointer<Scalar>, scratch: UnsafeMutableBufferPointer<Scalar>) {
        inputs[0].withUnsafeBufferPointer { input in
            _ = output.initialize(from: input)
        }
        ActivationFunction.apply(activation, to: output)
    }
}
