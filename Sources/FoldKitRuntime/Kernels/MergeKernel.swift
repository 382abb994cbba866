import FoldKitCore

/// Element-wise merge of two or more inputs (`ElementwiseMerge`: Keras Add, Subtract, Multiply, Average,
/// Maximum, Minimum), in `Scalar`:
///
///     out = in_0;  out = op(out, in_k) for k = 1 ..< n, in input order;  average: out = out / n at the end
///
/// with op +, -, *, /, max or min. An input of the output's shape is read element by element, one of
/// shape C x 1 x 1 as in[c] at every (y, x) of channel c, one of shape 1 x 1 x 1 as its value everywhere.
struct MergeKernel<Scalar: ExecutorScalar>: LayerKernel {
    let operation: MergeOperation
    let inputShapes: [ActivationShape]
    let output: ActivationShape

    /// How input element values are read for output element (c, i) of a plane.
    private enum Broadcast { case full, perChannel, single }

    private func broadcast(_ shape: ActivationShape) -> Broadcast {
        if shape == output { return .full }
        return shape.count == 1 ? .single : .perChannel
    }

    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    func forward(_ inputs: [[Scalar]], into result: UnsafeMutableBufferPointer<Scalar>, scratch: UnsafeMutableBufferPointer<Scalar>) {
        // out = in_0, broadcast to the output's shape.
        inputs[0].withUnsafeBufferPointer { first in
            switch broadcast(inputShapes[0]) {
            case .full: _ = result.initialize(from: first)
            case .single: result.initialize(repeating: first[0])
            case .perChannel:
                let plane = output.planeSize
                for c in 0..<output.channels {
                    UnsafeMutableBufferPointer(rebasing: result[(c * plane)..<((c + 1) * plane)]).initialize(repeating: first[c])
                }
            }
        }
        for k in 1..<inputs.count {
            let how = broadcast(inputShapes[k])
            inputs[k].withUnsafeBufferPointer { next in
                switch operation {
                case .add, .average: combine(result, next, how) { $0 + $1 }
                case .subtract: combine(result, next, how) { $0 - $1 }
                case .multiply: combine(result, next, how) { $0 * $1 }
                case .divide: combine(result, next, how) { $0 / $1 }
                case .maximum: combine(result, next, how) { Swift.max($0, $1) }
                case .minimum: combine(result, next, how) { Swift.min($0, $1) }
                }
            }
        }
        if operation == .average {
            let n = Scalar(inputs.count)
            for i in result.indices { result[i] /= n }
        }
    }

    /// out[i] = op(out[i], next[i]) with next read as `how` says.
    @inline(__always)
    private func combine(
        _ out: UnsafeMutableBufferPointer<Scalar>, _ next: UnsafeBufferPointer<Scalar>, _ how: Broadcast, _ op: (Scalar, Scalar) -> Scalar
    ) {
        switch how {
        case .full:
            for i in out.indices { out[i] = op(out[i], next[i]) }
        case .single:
            let value = next[0]
            for i in out.indices { out[i] = op(out[i], value) }
        case .perChannel:
            let plane = output.planeSize
            for c in 0..<output.channels {
                let value = next[c]
                for i in (c * plane)..<((c + 1) * plane) { out[i] = op(out[i], value) }
            }
        }
    }
}
