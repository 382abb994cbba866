import FoldKitCore

/// Per-channel affines, batch norm left unfolded, layer and group normalization, PReLU and softmax.
extension ONNXGraphBuilder {
    /// scale * x + shift per channel (`ChannelAffine`, what an unfoldable batch norm becomes): Mul and Add
    /// with [1, C, 1, 1] constants.
    mutating func channelAffine(_ a: ChannelAffine, input: String, channels: Int) throws -> String {
        let scaled = node("Mul", [input, try weights(a.scale, dims: [1, channels, 1, 1], hint: "scale")])
        return node("Add", [scaled, try weights(a.shift, dims: [1, channels, 1, 1], hint: "shift")])
    }

    /// A batch norm that stayed a layer: its scale gamma / sqrt(var + eps) (or gamma / (sqrt(var) + eps), by
    /// its own `EpsilonConvention`) and shift beta - mean * scale, worked out in float64 as the fold does
    /// (`BatchNorm.affine()`), as Mul and Add: never a BatchNormalization node with an assumed epsilon.
    mutating func batchNorm(_ bn: BatchNorm, input: String) throws -> String {
        let (scale, shift) = try bn.affine()
        let scaled = node("Mul", [input, doubles(scale, dims: [1, scale.count, 1, 1], hint: "bn_scale")])
        return node("Add", [scaled, doubles(shift, dims: [1, shift.count, 1, 1], hint: "bn_shift")])
    }

    /// Normalization over the channels at every position, as `LayerNormalization` computes it, in two passes:
    /// mean = ReduceMean over the channels, d = x - mean, variance = ReduceMean(d * d),
    /// y = d / Sqrt(variance + epsilon) * gamma + beta (gamma, beta [1, C, 1, 1]). Written out rather than as
    /// onnx's LayerNormalization (opset 17), which normalizes the last axes and which ONNX Runtime
    /// computes as E[x^2] - E[x]^2, losing digits where the mean is large against the spread.
    mutating func layerNormalization(_ n: LayerNormalization, input: String, channels: Int) throws -> String {
        let mean = reduceMean(input, axis: 1)
        let centred = node("Sub", [input, mean])
        let variance = reduceMean(node("Mul", [centred, centred]), axis: 1)
        let deviation = node("Sqrt", [node("Add", [variance, scalar(Float(n.epsilon), hint: "epsilon")])])
        var y = node("Div", [centred, deviation])
        if let gamma = n.gamma { y = node("Mul", [y, try weights(gamma, dims: [1, channels, 1, 1], hint: "gamma")]) }
        if let beta = n.beta { y = node("Add", [y, try weights(beta, dims: [1, channels, 1, 1], hint: "beta")]) }
        return y
    }

    /// Normalization over each of `groups` contiguous channel groups, as `GroupNormalization` computes it, in
    /// two passes: Reshape [1, C, H, W] to [1, G, C/G * H * W] (a group is a contiguous run of the
    /// channel-major tensor), mean = ReduceMean over axis 2, d = x - mean, variance = ReduceMean(d * d),
    /// d / Sqrt(variance + epsilon), Reshape back, then * gamma + beta ([1, C, 1, 1]). Written out rather than
    /// as onnx's GroupNormalization, which exists from opset 18 only and whose scale and bias are per group
    /// up to opset 20 and per channel from 21 (GroupNormalization-18 in onnx/defs/nn/old.cc, -21 in defs.cc).
    mutating func groupNormalization(_ n: GroupNormalization, input: String, shape: ActivationShape) throws -> String {
        let channels = shape.channels
        guard n.groups >= 1, channels % n.groups == 0 else {
            throw refuse("group normalization groups=\(n.groups) do not divide \(channels) channels")
        }
        let grouped = reshape(input, to: [1, n.groups, shape.count / n.groups])
        let centred = node("Sub", [grouped, reduceMean(grouped, axis: 2)])
        let variance = reduceMean(node("Mul", [centred, centred]), axis: 2)
        let deviation = node("Sqrt", [node("Add", [variance, scalar(Float(n.epsilon), hint: "epsilon")])])
        var y = reshape(node("Div", [centred, deviation]), to: ONNXGraphBuilder.dims(shape))
        if let gamma = n.gamma { y = node("Mul", [y, try weights(gamma, dims: [1, channels, 1, 1], hint: "gamma")]) }
        if let beta = n.beta { y = node("Add", [y, try weights(beta, dims: [1, channels, 1, 1], hint: "beta")]) }
        return y
    }

    /// ReduceMean over one axis, kept: the axes an attribute up to opset 17, an input from 18.
    mutating func reduceMean(_ x: String, axis: Int) -> String {
        if opset >= 18 { return node("ReduceMean", [x, int64s([axis], hint: "axes")], [ONNXAttribute.int("keepdims", 1)]) }
        return node("ReduceMean", [x], [ONNXAttribute.ints("axes", [axis]), ONNXAttribute.int("keepdims", 1)])
    }

    /// `PRelu` with the slope [1, C, 1, 1] (per channel) or [1, C, H, W] (per element).
    mutating func prelu(alpha: WeightTensor, input: String, shape: ActivationShape) throws -> String {
        let dims = alpha.count == shape.channels ? [1, shape.channels, 1, 1] : ONNXGraphBuilder.dims(shape)
        return node("PRelu", [input, try weights(alpha, dims: dims, hint: "slope")])
    }

    /// Softmax (`SoftmaxAxis`): over the channels at each position (axis 1); or, as darknet's softmax_cpu,
    /// over each of `groups` contiguous runs of the channel-major tensor, of x / temperature: Reshape to
    /// [groups, count/groups], Div by the temperature (when not 1), Softmax over the last axis, Reshape back.
    mutating func softmax(_ axis: SoftmaxAxis, input: String, shape: ActivationShape) throws -> String {
        switch axis {
        case .perPixelChannels:
            return node("Softmax", [input], [ONNXAttribute.int("axis", 1)])
        case .flattened(let groups, let temperature):
            guard groups >= 1, shape.count % groups == 0 else { throw refuse("softmax groups=\(groups) do not divide \(shape.count) values") }
            var x = reshape(input, to: [groups, shape.count / groups])
            if temperature != 1 { x = node("Div", [x, scalar(temperature, hint: "temperature")]) }
            return reshape(node("Softmax", [x], [ONNXAttribute.int("axis", 1)]), to: ONNXGraphBuilder.dims(shape))
        }
    }
}
