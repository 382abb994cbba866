import FoldKitCore

/// Layers that combine inputs: route (Concat), darknet's shortcut, products and Keras' merges.
extension NCNNGraphBuilder {
    /// darknet [route] / Keras Concatenate: each input's channels `Concatenation.takenChannels` (a `Crop`
    /// when it is not the whole input), then `Concat` 0=axis 0 (the channels); one whole input passes through.
    mutating func concatenation(_ r: Concatenation, inputs: [String], shapes: [ActivationShape]) -> String {
        let parts = zip(inputs, shapes).map { input, shape -> String in
            let taken = r.takenChannels(of: shape.channels)
            return crop(
                input, input: shape, channel: taken.lowerBound,
                keeping: ActivationShape(channels: taken.count, height: shape.height, width: shape.width))
        }
        return parts.count == 1 ? parts[0] : op("Concat", parts, [(0, .int(0))])
    }

    /// darknet [shortcut] (`shortcut_cpu`) then the activation: `BinaryOp` add, input by input. An input of
    /// another shape than the output adds by darknet's rule (`ShortcutOperand`, shared with the other engine
    /// writers): a `Crop` of the channels, rows and columns it reads, every `stride`-th row and column (a
    /// 1 x 1 max `Pooling` of that stride); with sample > 1 each value spread to the top-left of a sample x
    /// sample block of zeros (reshaped to one row per input row, zero `Padding` right, reshaped to one row
    /// per channel-row, zero `Padding` below, reshaped back); a `Crop` to the output's rows and columns, then
    /// zero `Padding` of channels, rows and columns to the output's shape.
    mutating func shortcut(_ s: ElementwiseSum, inputs: [String], shapes: [ActivationShape]) throws -> String {
        let out = shapes[0]
        var sum = inputs[0]
        for (input, shape) in zip(inputs, shapes).dropFirst() {
            sum = binary(sum, shortcutOperand(input, shape: shape, out: out), BinaryOperation.add)
        }
        return try activate(sum, s.activation)
    }

    private mutating func shortcutOperand(_ input: String, shape: ActivationShape, out: ActivationShape) -> String {
        if shape == out { return input }
        let plan = ShortcutOperand(input: shape, output: out)
        let (k, h, w, sample) = (plan.channels, plan.rows, plan.columns, plan.sample)
        var x = input
        if plan.cutsInput(shape) {
            x = crop(x, input: shape, keeping: ActivationShape(channels: k, height: plan.spannedRows, width: plan.spannedColumns))
            if plan.stride > 1 { x = every(plan.stride, x) }
        }
        if sample > 1 {
            x = pad(reshape(x, to: ActivationShape(channels: k * h, height: w, width: 1)), right: sample - 1)
            x = pad(reshape(x, to: ActivationShape(channels: k * h, height: 1, width: w * sample)), bottom: sample - 1)
            x = reshape(x, to: ActivationShape(channels: k, height: h * sample, width: w * sample))
        }
        let spread = ActivationShape(channels: k, height: plan.spreadRows, width: plan.spreadColumns)
        x = crop(
            x, input: spread, keeping: ActivationShape(channels: k, height: min(spread.height, out.height), width: min(spread.width, out.width)))
        let zeros = plan.padding(to: out)
        return pad(x, bottom: zeros.rows, right: zeros.columns, behind: zeros.channels)
    }

    /// Keras' merges, left to right in input order (`ElementwiseMerge`): `BinaryOp` add, sub, mul, div, max,
    /// min of the running result and the next input (ncnn broadcasts C x 1 x 1 and 1 x 1 x 1 inputs);
    /// average: the sum, then divided by the input count.
    mutating func merge(_ m: ElementwiseMerge, inputs: [String]) -> String {
        let operation: Int
        switch m.operation {
        case .add, .average: operation = BinaryOperation.add
        case .subtract: operation = BinaryOperation.subtract
        case .multiply: operation = BinaryOperation.multiply
        case .divide: operation = BinaryOperation.divide
        case .maximum: operation = BinaryOperation.maximum
        case .minimum: operation = BinaryOperation.minimum
        }
        var y = inputs[0]
        for next in inputs.dropFirst() { y = binary(y, next, operation) }
        if case .average = m.operation { y = binary(y, BinaryOperation.divide, scalar: Float(inputs.count)) }
        return y
    }
}
