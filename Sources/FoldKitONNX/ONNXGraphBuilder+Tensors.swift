import FoldKitCore

/// Shape helpers every lowering uses. Activations are `[1, C, H, W]` throughout the graph (FoldKit's
/// channel-major C x H x W with the batch axis in front), so a layer's output always has rank 4.
extension ONNXGraphBuilder {
    /// `[1, C, H, W]` of `shape`.
    static func dims(_ shape: ActivationShape) -> [Int] { [1, shape.channels, shape.height, shape.width] }

    /// Reshape to `dims` (same element count).
    mutating func reshape(_ x: String, to dims: [Int]) -> String {
        node("Reshape", [x, int64s(dims, hint: "shape")])
    }

    /// Transpose with `perm`.
    mutating func transpose(_ x: String, perm: [Int]) -> String {
        node("Transpose", [x], [ONNXAttribute.ints("perm", perm)])
    }

    /// Slice along `axes` from `starts` (inclusive) to `ends` (exclusive) with `steps` (default 1).
    mutating func slice(_ x: String, axes: [Int], starts: [Int], ends: [Int], steps: [Int]? = nil) -> String {
        var inputs = [x, int64s(starts, hint: "starts"), int64s(ends, hint: "ends"), int64s(axes, hint: "axes")]
        if let steps { inputs.append(int64s(steps, hint: "steps")) }
        return node("Slice", inputs)
    }

    /// Constant padding: `pads` is onnx's [x1_begin, x2_begin, ..., x1_end, x2_end, ...] over all four
    /// axes; `value` fills (0 unless given).
    mutating func pad(_ x: String, pads: [Int], value: Float = 0) -> String {
        if pads.allSatisfy({ $0 == 0 }) { return x }
        return node("Pad", [x, int64s(pads, hint: "pads"), scalar(value, hint: "pad_value")], [ONNXAttribute.string("mode", "constant")])
    }

    /// Channels `range` of a `[1, C, H, W]` tensor (the whole tensor when the range is all of it).
    mutating func channels(_ x: String, _ range: Range<Int>, of total: Int) -> String {
        if range == 0..<total { return x }
        return slice(x, axes: [1], starts: [range.lowerBound], ends: [range.upperBound])
    }

    /// x * scale + shift with scalars, each step left out when it changes nothing (scale 1, shift 0).
    mutating func affine(_ x: String, scale: Float, shift: Float) -> String {
        var y = x
        if scale != 1 { y = node("Mul", [y, self.scalar(scale, hint: "scale")]) }
        if shift != 0 { y = node("Add", [y, self.scalar(shift, hint: "shift")]) }
        return y
    }
}
