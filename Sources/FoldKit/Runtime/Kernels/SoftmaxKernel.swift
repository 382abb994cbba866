/// Softmax, the maximum subtracted first: y_i = exp(x_i - max) / sum_j exp(x_j - max).
/// `.flattened(groups)`: over each of `groups` contiguous runs of count/groups values of the
/// channel-major tensor (Darknet's softmax_cpu with temperature 1). `.perPixelChannels`: over the
/// channels at each (y, x) (Keras axis -1).
struct SoftmaxKernel<Scalar: ExecutorScalar>: LayerKernel {
    let axis: SoftmaxAxis
    let shape: ActivationShape

    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    func forward(_ inputs: [[Scalar]], into output: UnsafeMutableBufferPointer<Scalar>, scratch: UnsafeMutableBufferPointer<Scalar>) {
        inputs[0].withUnsafeBufferPointer { input in
            switch axis {
            case .flattened(let groups):
                let n = shape.count / groups
                for g in 0..<groups {
                    softmax(input, output, start: g * n, count: n, stride: 1)
                }
            case .perPixelChannels:
                for p in 0..<shape.planeSize {
                    softmax(input, output, start: p, count: shape.channels, stride: shape.planeSize)
                }
            }
        }
    }

    @inline(__always)
    private func softmax(_ x: UnsafeBufferPointer<Scalar>, _ y: UnsafeMutableBufferPointer<Scalar>, start: Int, count: Int, stride: Int) {
        var largest = -Scalar.infinity
        for i in 0..<count where x[start + i * stride] > largest { largest = x[start + i * stride] }
        var sum: Scalar = 0
        for i in 0..<count {
            let e = Scalar.exponential(x[start + i * stride] - largest)
            sum += e
            y[start + i * stride] = e
        }
        for i in 0..<count { y[start + i * stride] /= sum }
    }
}
