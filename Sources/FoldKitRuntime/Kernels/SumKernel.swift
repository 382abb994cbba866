import FoldKitCore

/// Element-wise sum then activation (Darknet [shortcut], Keras Add). The output has the first input's
/// shape (C0 x H0 x W0). Inputs of that same shape are added element by element. Any other input
/// (Ci x Hi x Wi) is added as Darknet's `shortcut_cpu` does, over the common channels min(C0, Ci) and
/// the common size: with stride = max(Wi/W0, 1) and sample = max(W0/Wi, 1),
///
///     out[k, j*sample, i*sample] += in_i[k, j*stride, i*stride]   for k < min(C0, Ci), j < min(H0, Hi), i < min(W0, Wi)
struct SumKernel<Scalar: ExecutorScalar>: LayerKernel {
    let inputShapes: [ActivationShape]
    let activation: Activation

    init(inputShapes: [ActivationShape], activation: Activation, layer: Layer) throws {
        let out = inputShapes[0]
        for shape in inputShapes.dropFirst() where shape != out {
            let stride = shape.width / out.width, sample = out.width / shape.width
            guard stride == shape.height / out.height, sample == out.height / shape.height else {
                throw FoldKitError(
                    .badInput, "shortcut inputs must be scaled by the same factor in both directions",
                    file: layer.source.file, line: layer.source.line, layer: layer.label,
                    expected: "a size like \(out.width)x\(out.height) scaled by one integer factor", found: "\(shape)")
            }
        }
        self.inputShapes = inputShapes
        self.activation = activation
    }

    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    func forward(_ inputs: [[Scalar]], into output: UnsafeMutableBufferPointer<Scalar>, scratch: UnsafeMutableBufferPointer<Scalar>) {
        let out = inputShapes[0]
        var rest = Array(zip(inputs.dropFirst(), inputShapes.dropFirst()))
        if let (second, shape) = rest.first, shape == out {
            // The common case (Darknet [shortcut] of two same-shaped tensors): one pass, split across cores.
            rest.removeFirst()
            inputs[0].withUnsafeBufferPointer { a in
                second.withUnsafeBufferPointer { b in
                    Parallel.forRanges(out.count, totalWork: out.count) { range in
                        for i in range { output[i] = a[i] + b[i] }
                    }
                }
            }
        } else {
            inputs[0].withUnsafeBufferPointer { first in _ = output.initialize(from: first) }
        }
        for (input, shape) in rest {
            input.withUnsafeBufferPointer { add in
                if shape == out {
                    for i in 0..<out.count { output[i] += add[i] }
                    return
                }
                let stride = Swift.max(shape.width / out.width, 1), sample = Swift.max(out.width / shape.width, 1)
                let minW = Swift.min(out.width, shape.width), minH = Swift.min(out.height, shape.height)
                let minC = Swift.min(out.channels, shape.channels)
                for k in 0..<minC {
                    for j in 0..<minH {
                        for i in 0..<minW {
                            output[i * sample + out.width * (j * sample + out.height * k)] +=
                                add[i * stride + shape.width * (j * stride + shape.height * k)]
                        }
                    }
                }
            }
        }
        ActivationFunction.apply(activation, to: output)
    }
}
