import FoldKitCore

/// Global pooling over H x W per channel, output C x 1 x 1: the mean (sum / (H*W), Darknet [avgpool],
/// Keras GlobalAveragePooling2D) or the maximum (Keras GlobalMaxPooling2D).
struct GlobalPoolingKernel<Scalar: ExecutorScalar>: LayerKernel {
    enum Reduction { case average, max }
    let reduction: Reduction
    let input: ActivationShape

    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    func forward(_ inputs: [[Scalar]], into output: UnsafeMutableBufferPointer<Scalar>, scratch: UnsafeMutableBufferPointer<Scalar>) {
        let plane = input.planeSize
        inputs[0].withUnsafeBufferPointer { source in
            for c in 0..<input.channels {
                let values = source[(c * plane)..<((c + 1) * plane)]
                switch reduction {
                case .average:
                    var sum: Scalar = 0
                    for v in values { sum += v }
                    output[c] = sum / Scalar(plane)
                case .max:
                    var best = -Scalar.infinity
                    for v in values where v > best { best = v }
                    output[c] = best
                }
            }
        }
    }
}
