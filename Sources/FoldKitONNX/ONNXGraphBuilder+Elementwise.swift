import FoldKitCore

/// Layers that combine inputs: route (Concat), darknet's shortcut, products and Keras' merges.
extension ONNXGraphBuilder {
    /// darknet [route] / Keras Concatenate: each input's channel range [groupID*C/groups, (groupID+1)*C/groups)
    /// (a Slice when it is not the whole input), then Concat along the channels.
    mutating func concatenation(_ r: Concatenation, inputs: [String], shapes: [ActivationShape]) -> String {
        let parts = zip(inputs, shapes).map { input, shape -> String in
            channels(input, r.takenChannels(of: shape.channels), of: shape.channels)
        }
        return parts.count == 1 ? node("Identity", parts) : node("Concat", parts, [ONNXAttribute.int("axis", 1)])
    }

    /// darknet [shortcut] (`shortcut_cpu`) then the activation. The output has the first input's shape
    /// C0 x H0 x W0; an input of that shape is added as it is. Any other input adds by darknet's rule
    /// (`ShortcutOperand`, shared with the other engine writers), lowered as: Slice of channels [0, min(C0, Ci)) and of rows and columns 0, stride, ... (min(H0, Hi) of
    /// them); with sample > 1, each value spread to the top-left of a sample x sample block of zeros
    /// (Unsqueeze-like Reshape to [1, k, h, 1, w, 1], Pad, Reshape); then zero Pad to C0 x H0 x W0 and Add.
    mutating func shortcut(_ s: ElementwiseSum, inputs: [String], shapes: [ActivationShape]) -> String {
        let out = shapes[0]
        var sum = inputs[0]
        for (input, shape) in zip(inputs, shapes).dropFirst() {
            sum = node("Add", [sum, shortcutOperand(input, shape: shape, out: out)])
        }
        return activate(sum, s.activation)
    }

    private mutating func shortcutOperand(_ input: String, shape: ActivationShape, out: ActivationShape) -> String {
        if shape == out { return input }
        let plan = ShortcutOperand(input: shape, output: out)
        let (k, stride, sample, h, w) = (plan.channels, plan.stride, plan.sample, plan.rows, plan.columns)
        var x = input
        if plan.cutsInput(shape) {
            x = slice(x, axes: [1, 2, 3], starts: [0, 0, 0], ends: [k, plan.spannedRows, plan.spannedColumns], steps: [1, stride, stride])
        }
        if sample > 1 {
            x = reshape(x, to: [1, k, h, 1, w, 1])
            x = pad(x, pads: [0, 0, 0, 0, 0, 0, 0, 0, 0, sample - 1, 0, sample - 1])
            x = reshape(x, to: [1, k, h * sample, w * sample])
        }
        if plan.spreadRows > out.height || plan.spreadColumns > out.width {
            x = slice(x, axes: [2, 3], starts: [0, 0], ends: [min(plan.spreadRows, out.height), min(plan.spreadColumns, out.width)])
        }
        let zeros = plan.padding(to: out)
        return pad(x, pads: [0, 0, 0, 0, 0, zeros.channels, zeros.rows, zeros.columns])
    }

    /// darknet [scale_channels] / [sam], Keras Multiply of two: `Mul`, a C x 1 x 1 input broadcast over H x W.
    mutating func product(inputs: [String]) -> String {
        node("Mul", inputs)
    }

    /// Keras' merges, left to right in input order (`ElementwiseMerge`): Add, Sub, Mul, Div, Max, Min of the
    /// running result and the next input, with onnx broadcasting of C x 1 x 1 and 1 x 1 x 1 inputs; average:
    /// the sum, then Div by the input count.
    mutating func merge(_ m: ElementwiseMerge, inputs: [String]) -> String {
        let op: String
        switch m.operation {
        case .add, .average: op = "Add"
        case .subtract: op = "Sub"
        case .multiply: op = "Mul"
        case .divide: op = "Div"
        case .maximum: op = "Max"
        case .minimum: op = "Min"
        }
        var y = inputs[0]
        for next in inputs.dropFirst() { y = node(op, [y, next]) }
        if case .average = m.operation { y = node("Div", [y, scalar(Float(inputs.count), hint: "count")]) }
        return y
    }
}
