import FoldKitCore

/// Softmax, the maximum subtracted first: y_i = exp(x_i - max) / sum_j exp(x_j - max).
/// `.flattened(groups, temperature)`: over each of `groups` contiguous runs of count/groups values of the
/// channel-major tensor, of x / temperature (Darknet's softmax_cpu). `.perPixelChannels`: over the
/// channels at each (y, x) (Keras axis -1). The exponentials go through `VectorMath` (Docs/Activations.md).
struct SoftmaxKernel<Scalar: ExecutorScalar>: LayerKernel {
    let axis: SoftmaxAxis
    let shape: ActivationShape

    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    func forward(_ inputs: [[Scalar]], into output: UnsafeMutableBufferPointer<Scalar>, scratch: UnsafeMutableBufferPointer<Scalar>) {
        guard let y = output.baseAddress else { return }
        inputs[0].withUnsafeBufferPointer { input in
            guard let x = input.baseAddress else { return }
            switch axis {
            case .flattened(let groups, let temperature):
                let n = shape.count / groups
                for g in 0..<groups { softmaxRun(x + g * n, y + g * n, count: n, temperature: Scalar(temperature)) }
            case .perPixelChannels:
                softmaxOverChannels(x, y, channels: shape.channels, planeSize: shape.planeSize)
            }
        }
    }

    /// Softmax of `count` contiguous values of x / temperature, computed as darknet's `softmax` does
    /// (x_i / T - max / T; with T = 1 simply x_i - max); the exponentials in one vector call (`VectorMath`).
    @inline(__always)
    private func softmaxRun(_ x: UnsafePointer<Scalar>, _ y: UnsafeMutablePointer<Scalar>, count: Int, temperature: Scalar) {
        var largest = -Scalar.infinity
        for i in 0..<count where x[i] > largest { largest = x[i] }
        if temperature == 1 {
            for i in 0..<count { y[i] = x[i] - largest }
        } else {
            let scaledLargest = largest / temperature
            for i in 0..<count { y[i] = x[i] / temperature - scaledLargest }
        }
        VectorMath.exponential(y, y, count)
        var sum: Scalar = 0
        for i in 0..<count { sum += y[i] }
        for i in 0..<count { y[i] /= sum }
    }

    /// Softmax over the channels at every pixel of a channel-major tensor, plane by plane so that every
    /// loop runs over contiguous memory: the maximum and the sum per pixel accumulate channel by channel
    /// (the same order, so the same sums, as pixel by pixel).
    private func softmaxOverChannels(_ x: UnsafePointer<Scalar>, _ y: UnsafeMutablePointer<Scalar>, channels: Int, planeSize: Int) {
        var largest = [Scalar](repeating: -Scalar.infinity, count: planeSize)
        var sum = [Scalar](repeating: 0, count: planeSize)
        largest.withUnsafeMutableBufferPointer { largest in
            sum.withUnsafeMutableBufferPointer { sum in
                for c in 0..<channels {
                    let plane = x + c * planeSize
                    for p in 0..<planeSize where plane[p] > largest[p] { largest[p] = plane[p] }
                }
                for c in 0..<channels {
                    for p in 0..<planeSize { y[c * planeSize + p] = x[c * planeSize + p] - largest[p] }
                }
                VectorMath.exponential(y, y, channels * planeSize)
                for c in 0..<channels {
                    for p in 0..<planeSize { sum[p] += y[c * planeSize + p] }
                }
                for c in 0..<channels {
                    for p in 0..<planeSize { y[c * planeSize + p] /= sum[p] }
                }
            }
        }
    }
}
