import FoldKitCore

/// Channel concatenation (Darknet [route], Keras Concatenate): the inputs' channel ranges
/// [groupID*C/groups, (groupID+1)*C/groups), one after another. Each range is contiguous in
/// channel-major storage, so this is one copy per input.
struct ConcatenationKernel<Scalar: ExecutorScalar>: LayerKernel {
    let concatenation: Concatenation
    let inputShapes: [ActivationShape]

    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    func forward(_ inputs: [[Scalar]], into output: UnsafeMutableBufferPointer<Scalar>, scratch: UnsafeMutableBufferPointer<Scalar>) {
        var offset = 0
        for (input, shape) in zip(inputs, inputShapes) {
            let perGroup = shape.channels / concatenation.groups
            let start = concatenation.groupID * perGroup * shape.planeSize
            let count = perGroup * shape.planeSize
            input.withUnsafeBufferPointer { source in
                _ = UnsafeMutableBufferPointer(rebasing: output[offset..<(offset + count)])
                    .initialize(from: source[start..<(start + count)])
            }
            offset += count
        }
    }
}
