import FoldKitCore

/// Operators that combine inputs: route (CONCATENATION), darknet's shortcut, products and Keras' merges.
extension TFLiteGraphBuilder {
    /// darknet [route] / Keras Concatenate: each input's channels `Concatenation.takenChannels` (a SLICE when
    /// it is not the whole input), then CONCATENATION on axis 3 (the channels); one whole input passes through.
    mutating func concatenation(_ r: Concatenation, inputs: [Int], shapes: [ActivationShape], outputShape: ActivationShape) -> Int {
        let parts = zip(inputs, shapes).map { input, shape -> Int in
            let taken = r.takenChannels(of: shape.channels)
            return slice(input, begin: [0, 0, 0, taken.lowerBound], size: [1, shape.height, shape.width, taken.count])
        }
        if parts.count == 1 { return parts[0] }
        return op(.concatenation, parts, shape: nhwc(outputShape), options: .concatenation(axis: 3))
    }

    /// darknet [shortcut] (`shortcut_cpu`) then the activation: ADD, input by input. An input of another shape
    /// than the output adds by darknet's rule (`ShortcutOperand`, shared with the other engine writers): a
    /// STRIDED_SLICE of the channels, rows and columns it reads, every `stride`-th; with sample > 1 each value
    /// spread to the top-left of a sample x sample block of zeros (RESHAPE to [h, 1, w, 1, k], PAD to
    /// [h, sample, w, sample, k], RESHAPE back); a SLICE to the output's rows and columns, then PAD with zeros
    /// to the output's channels, rows and columns. RELU and RELU6 are fused into the last ADD.
    mutating func shortcut(_ s: ElementwiseSum, inputs: [Int], shapes: [ActivationShape]) throws -> Int {
        let out = shapes[0]
        var sum = inputs[0]
        let operands = zip(inputs, shapes).dropFirst().map { ($0, $1) }
        let fusion = fused(s.activation)
        for (i, (input, shape)) in operands.enumerated() {
            let last = i == operands.count - 1
            sum = binary(.add, sum, shortcutOperand(input, shape: shape, out: out), fused: last ? (fusion ?? .none) : .none)
        }
        return operands.isEmpty || fusion == nil ? try activate(sum, s.activation) : sum
    }

    private mutating func shortcutOperand(_ input: Int, shape: ActivationShape, out: ActivationShape) -> Int {
        if shape == out { return input }
        let plan = ShortcutOperand(input: shape, output: out)
        let (k, h, w, sample) = (plan.channels, plan.rows, plan.columns, plan.sample)
        var x = input
        if plan.cutsInput(shape) {
            x = stridedSlice(
                x, begin: [0, 0, 0, 0], end: [1, plan.spannedRows, plan.spannedColumns, k], strides: [1, plan.stride, plan.stride, 1])
        }
        if sample > 1 {
            x = pad(reshape(x, to: [h, 1, w, 1, k]), [0, 0, 0, 0, 0], [0, sample - 1, 0, sample - 1, 0])
            x = reshape(x, to: [1, h * sample, w * sample, k])
        }
        x = slice(x, begin: [0, 0, 0, 0], size: [1, min(plan.spreadRows, out.height), min(plan.spreadColumns, out.width), k])
        let zeros = plan.padding(to: out)
        return pad(x, [0, 0, 0, 0], [0, zeros.rows, zeros.columns, zeros.channels])
    }

    /// Keras' merges, left to right in input order (`ElementwiseMerge`): ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM
    /// of the running result and the next input (LiteRT broadcasts [1, 1, 1, C] inputs); average: the sum,
    /// then DIV by the input count.
    mutating func merge(_ m: ElementwiseMerge, inputs: [Int]) -> Int {
        let code: Binary
        switch m.operation {
        case .add, .average: code = .add
        case .subtract: code = .sub
        case .multiply: code = .mul
        case .divide: code = .div
        case .maximum: code = .maximum
        case .minimum: code = .minimum
        }
        var y = inputs[0]
        for next in inputs.dropFirst() { y = binary(code, y, next) }
        if case .average = m.operation { y = binary(.div, y, scalar: Float(inputs.count)) }
        return y
    }
}
