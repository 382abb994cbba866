import FoldKitCore

/// A window along the channels (`ChannelRange`: channel padding and slicing):
/// out[c, y, x] = in[c + offset, y, x] when 0 <= c + offset < C_in, 0 otherwise. Each output channel is
/// one plane copied or zeroed.
struct ChannelRangeKernel<Scalar: ExecutorScalar>: LayerKernel {
    let offset: Int
    let input: ActivationShape
    let output: ActivationShape

    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    func forward(_ inputs: [[Scalar]], into result: UnsafeMutableBufferPointer<Scalar>, scratch: UnsafeMutableBufferPointer<Scalar>) {
        let plane = output.planeSize
        inputs[0].withUnsafeBufferPointer { source in
            for c in 0..<output.channels {
                let destination = UnsafeMutableBufferPointer(rebasing: result[(c * plane)..<((c + 1) * plane)])
                let from = c + offset
                if from >= 0 && from < input.channels {
                    _ = destination.initialize(from: source[(from * plane)..<((from + 1) * plane)])
                } else {
                    destination.initialize(repeating: 0)
                }
            }
        }
    }
}
