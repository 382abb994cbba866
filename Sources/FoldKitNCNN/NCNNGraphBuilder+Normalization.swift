import FoldKitCore

/// Per-channel affines, batch norm left unfolded, layer and group normalization, PReLU and softmax.
extension NCNNGraphBuilder {
    /// scale * x + shift per channel (`ChannelAffine`, what an unfoldable batch norm becomes): `Scale`
    /// (0=scale_data_size 1=bias_term; scale and bias float32).
    mutating func channelAffine(_ a: ChannelAffine, input: String, channels: Int) throws -> String {
        let scale = try weights(a.scale, count: channels, hint: "scale", storage: .raw)
        let shift = try weights(a.shift, count: channels, hint: "shift", storage: .raw)
        return op("Scale", [input], [(0, .int(channels)), (1, .int(1))], weights: [scale, shift])
    }

    /// A batch norm that stayed a layer: its scale and shift worked out in float64 as the fold does
    /// (`BatchNorm.affine()`, by its own `EpsilonConvention`), as a `Scale`: never ncnn's BatchNorm, which
    /// takes one epsilon inside the square root and works the affine out in float32.
    mutating func batchNorm(_ bn: BatchNorm, input: String) throws -> String {
        let (scale, shift) = try bn.affine()
        let weights = [
            constants(scale.map { Float($0) }, hint: "bn_scale", storage: .raw), constants(shift.map { Float($0) }, hint: "bn_shift", storage: .raw),
        ]
        return op("Scale", [input], [(0, .int(scale.count)), (1, .int(1))], weights: weights)
    }

    /// Normalization over the channels at every position, as `LayerNormalization` computes it, in two passes:
    /// mean = `Reduction` mean over the channels (axis c, kept), d = x - mean, variance = mean of d * d,
    /// y = d / sqrt(variance + epsilon) * gamma + beta (`BinaryOp`s broadcasting 1 x H x W and C x 1 x 1).
    /// Written out as the onnx writer does: ncnn's LayerNorm normalizes the innermost axis and forms
    /// x / sqrt(var + eps) - mean / sqrt(var + eps), which loses digits where the mean is large against the
    /// spread.
    mutating func layerNormalization(_ n: LayerNormalization, input: String, shape: ActivationShape) throws -> String {
        func channelMean(_ x: String) -> String {
            op("Reduction", [x], [(0, .int(3)), (1, .int(0)), (3, .ints([0])), (4, .int(1)), (5, .int(1))])
        }
        let centred = binary(input, channelMean(input), BinaryOperation.subtract)
        let variance = channelMean(binary(centred, centred, BinaryOperation.multiply))
        let deviation = unary(binary(variance, BinaryOperation.add, scalar: Float(n.epsilon)), UnaryOperation.sqrt)
        var y = binary(centred, deviation, BinaryOperation.divide)
        let perChannel = ActivationShape(channels: shape.channels, height: 1, width: 1)
        if let gamma = n.gamma {
            y = binary(
                y, memoryData(try weights(gamma, count: shape.channels, hint: "gamma", storage: .raw), shape: perChannel), BinaryOperation.multiply)
        }
        if let beta = n.beta {
            y = binary(y, memoryData(try weights(beta, count: shape.channels, hint: "beta", storage: .raw), shape: perChannel), BinaryOperation.add)
        }
        return y
    }

    /// Normalization over each of `groups` contiguous channel groups, as `GroupNormalization` computes it, in
    /// two passes: `Reshape` C x H x W to G x C/G x (H * W) (a group is a contiguous run of the channel-major
    /// Mat, now one channel of it), mean = `Reduction` mean over h and w (kept, G x 1 x 1), d = x - mean,
    /// variance = mean of d * d, d / sqrt(variance + epsilon) (`BinaryOp`s broadcasting G x 1 x 1),
    /// `Reshape` back, then gamma and beta (`MemoryData` C x 1 x 1). Written out as the layer normalization
    /// is: ncnn's GroupNorm (src/layer/groupnorm.cpp) forms x * a + b with a = gamma / sqrt(var + eps) and
    /// b = beta - mean * a, which loses digits where the mean is large against the spread.
    mutating func groupNormalization(_ n: GroupNormalization, input: String, shape: ActivationShape) throws -> String {
        let channels = shape.channels
        guard n.groups >= 1, channels % n.groups == 0 else {
            throw refuse("group normalization groups=\(n.groups) do not divide \(channels) channels")
        }
        func groupMean(_ x: String) -> String {
            op("Reduction", [x], [(0, .int(3)), (1, .int(0)), (3, .ints([1, 2])), (4, .int(1)), (5, .int(1))])
        }
        let grouped = reshape(input, to: ActivationShape(channels: n.groups, height: channels / n.groups, width: shape.planeSize))
        let centred = binary(grouped, groupMean(grouped), BinaryOperation.subtract)
        let variance = groupMean(binary(centred, centred, BinaryOperation.multiply))
        let deviation = unary(binary(variance, BinaryOperation.add, scalar: Float(n.epsilon)), UnaryOperation.sqrt)
        var y = reshape(binary(centred, deviation, BinaryOperation.divide), to: shape)
        let perChannel = ActivationShape(channels: channels, height: 1, width: 1)
        if let gamma = n.gamma {
            y = binary(y, memoryData(try weights(gamma, count: channels, hint: "gamma", storage: .raw), shape: perChannel), BinaryOperation.multiply)
        }
        if let beta = n.beta {
            y = binary(y, memoryData(try weights(beta, count: channels, hint: "beta", storage: .raw), shape: perChannel), BinaryOperation.add)
        }
        return y
    }

    /// Parametric ReLU, slope per channel: `PReLU` (0=num_slope, slopes float32). Slope per element
    /// ([C, H, W], Keras's default): ReLU(x) + slope * min(x, 0) with the slopes a `MemoryData` - exact, as
    /// one of the two terms is always 0.
    mutating func prelu(alpha: WeightTensor, input: String, shape: ActivationShape) throws -> String {
        if alpha.count == shape.channels {
            return op(
                "PReLU", [input], [(0, .int(shape.channels))], weights: [try weights(alpha, count: shape.channels, hint: "slope", storage: .raw)])
        }
        let slopes = memoryData(try weights(alpha, count: shape.count, hint: "slope", storage: .raw), shape: shape)
        let negative = binary(binary(input, BinaryOperation.minimum, scalar: 0), slopes, BinaryOperation.multiply)
        return binary(op("ReLU", [input]), negative, BinaryOperation.add)
    }

    /// Softmax (`SoftmaxAxis`): over the channels at each position (`Softmax` 0=axis 0, 1=fixbug0 1); or, as
    /// darknet's softmax_cpu, over each of `groups` contiguous runs of the channel-major tensor, of
    /// x / temperature: `Reshape` to groups rows, divided by the temperature (when not 1), `Softmax` over each
    /// row (axis 1), `Reshape` back.
    mutating func softmax(_ axis: SoftmaxAxis, input: String, shape: ActivationShape) throws -> String {
        switch axis {
        case .perPixelChannels:
            return op("Softmax", [input], [(0, .int(0)), (1, .int(1))])
        case .flattened(let groups, let temperature):
            guard groups >= 1, shape.count % groups == 0 else { throw refuse("softmax groups=\(groups) do not divide \(shape.count) values") }
            var x = reshape(input, rows: groups, columns: shape.count / groups)
            if temperature != 1 { x = binary(x, BinaryOperation.divide, scalar: temperature) }
            return reshape(op("Softmax", [x], [(0, .int(1)), (1, .int(1))]), to: shape)
        }
    }
}
