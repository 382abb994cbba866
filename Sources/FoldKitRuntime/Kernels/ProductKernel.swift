import FoldKitCore

/// Element-wise product of two inputs (Darknet [sam] and [scale_channels], Keras Multiply). Equal shapes
/// multiply element by element; an input of shape C x 1 x 1 scales every channel of the other:
/// out[c, y, x] = a[c, y, x] * b[c].
struct ProductKernel<Scalar: ExecutorScalar>: LayerKernel {
    let first: ActivationShape
    let second: ActivationShape

    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    func forward(_ inputs: [[Scalar]], into output: UnsafeMutableBufferPointer<Scalar>, scratch: UnsafeMutableBufferPointer<Scalar>) {
        inputs[0].withUnsafeBufferPointer { a in
            inputs[1].withUnsafeBufferPointer { b in
                if first == second {
                    for i in 0..<first.count { output[i] = a[i] * b[i] }
                } else if second.planeSize == 1 {
                    multiply(map: a, perChannel: b, shape: first, into: output)
                } else {
                    multiply(map: b, perChannel: a, shape: second, into: output)
                }
            }
        }
    }

    @inline(__always)
    private func multiply(
        map: UnsafeBufferPointer<Scalar>, perChannel: UnsafeBufferPointer<Scalar>, shape: ActivationShape,
        into output: UnsafeMutableBufferPointer<Scalar>
    ) {
        let plane = shape.planeSize
        for c in 0..<shape.channels {
            let s = perChannel[c]
            for i in (c * plane)..<((c + 1) * plane) { output[i] = map[i] * s }
        }
    }
}
