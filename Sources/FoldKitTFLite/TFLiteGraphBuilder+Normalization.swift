import FoldKitCore

/// Per-channel affines, batch norm left unfolded, layer and group normalization, PReLU and softmax.
extension TFLiteGraphBuilder {
    /// scale * x + shift per channel (`ChannelAffine`, what an unfoldable batch norm becomes): MUL and ADD of
    /// [C] float32 constants, broadcast over [1, H, W, C].
    mutating func channelAffine(_ a: ChannelAffine, input: Int, channels: Int) throws -> Int {
        let scale = try weights(a.scale, shape: [channels], hint: "scale", halfAllowed: false)
        let shift = try weights(a.shift, shape: [channels], hint: "shift", halfAllowed: false)
        return binary(.add, binary(.mul, input, scale), shift)
    }

    /// A batch norm that stayed a layer: its scale and shift worked out in float64 as the fold does
    /// (`BatchNorm.affine()`, by its own `EpsilonConvention`), then MUL and ADD.
    mutating func batchNorm(_ bn: BatchNorm, input: Int) throws -> Int {
        let (scale, shift) = try bn.affine()
        let s = constant(scale.map { Float($0) }, shape: [scale.count], hint: "bn_scale")
        let t = constant(shift.map { Float($0) }, shape: [shift.count], hint: "bn_shift")
        return binary(.add, binary(.mul, input, s), t)
    }

    /// Normalization over the channels at every position, as `LayerNormalization` computes it, in two
    /// passes: mean = MEAN over axis 3 (kept), d = x - mean, variance = MEAN of d * d, y = d / SQRT(variance +
    /// epsilon) * gamma + beta.
    mutating func layerNormalization(_ n: LayerNormalization, input: Int, shape: ActivationShape) throws -> Int {
        let positions = [1, shape.height, shape.width, 1]
        let axis = integers([3])
        let centred = binary(.sub, input, op(.mean, [input, axis], shape: positions, options: .reducer(keepDims: true)))
        let variance = op(.mean, [binary(.mul, centred, centred), axis], shape: positions, options: .reducer(keepDims: true))
        let deviation = same(.sqrt, [binary(.add, variance, scalar: Float(n.epsilon))])
        var y = binary(.div, centred, deviation)
        if let gamma = n.gamma { y = binary(.mul, y, try weights(gamma, shape: [shape.channels], hint: "gamma", halfAllowed: false)) }
        if let beta = n.beta { y = binary(.add, y, try weights(beta, shape: [shape.channels], hint: "beta", halfAllowed: false)) }
        return y
    }

    /// Normalization over each of `groups` contiguous channel groups, as `GroupNormalization` computes it,
    /// in two passes on the NHWC tensor: RESHAPE [1, H, W, C] to [1, H * W, G, C/G] (channel c = g * C/G + j
    /// is element (g, j) of each position's row), mean = MEAN over axes 1 and 3 (kept, [1, 1, G, 1]),
    /// d = x - mean, variance = MEAN of d * d, d / SQRT(variance + epsilon), RESHAPE back, then * gamma +
    /// beta ([C], broadcast). Every tensor stays at rank 4, which every kernel's version 1 takes.
    mutating func groupNormalization(_ n: GroupNormalization, input: Int, shape: ActivationShape) throws -> Int {
        let channels = shape.channels
        guard n.groups >= 1, channels % n.groups == 0 else {
            throw refuse("group normalization groups=\(n.groups) do not divide \(channels) channels")
        }
        let grouped = reshape(input, to: [1, shape.planeSize, n.groups, channels / n.groups])
        let statistics = [1, 1, n.groups, 1]
        let axes = integers([1, 3])
        let centred = binary(.sub, grouped, op(.mean, [grouped, axes], shape: statistics, options: .reducer(keepDims: true)))
        let variance = op(.mean, [binary(.mul, centred, centred), axes], shape: statistics, options: .reducer(keepDims: true))
        let deviation = same(.sqrt, [binary(.add, variance, scalar: Float(n.epsilon))])
        var y = reshape(binary(.div, centred, deviation), to: nhwc(shape))
        if let gamma = n.gamma { y = binary(.mul, y, try weights(gamma, shape: [channels], hint: "gamma", halfAllowed: false)) }
        if let beta = n.beta { y = binary(.add, y, try weights(beta, shape: [channels], hint: "beta", halfAllowed: false)) }
        return y
    }

    /// Parametric ReLU (x >= 0 ? x : alpha * x): PRELU with the slopes per channel ([C], broadcast), or per
    /// element ([1, H, W, C] from FoldKit's [C, H, W], Keras's default).
    mutating func prelu(alpha: WeightTensor, input: Int, shape: ActivationShape) throws -> Int {
        let (c, h, w) = (shape.channels, shape.height, shape.width)
        let slopes =
            alpha.count == c
            ? try weights(alpha, shape: [c], hint: "slope", halfAllowed: false)
            : try weights(alpha, shape: [1, h, w, c], hint: "slope", halfAllowed: false) { chw in
                Self.permuted(chw, from: [c, h, w], order: [1, 2, 0])
            }
        return same(.prelu, [input, slopes])
    }

    /// Softmax (`SoftmaxAxis`): over the channels at each position, SOFTMAX (beta 1) on the last axis; or, as
    /// darknet's softmax_cpu, over each of `groups` contiguous runs of FoldKit's channel-major tensor, of
    /// x / temperature: TRANSPOSE to NCHW, RESHAPE to [groups, n], DIV by the temperature (when not 1),
    /// SOFTMAX, RESHAPE and TRANSPOSE back.
    mutating func softmax(_ axis: SoftmaxAxis, input: Int, shape: ActivationShape) throws -> Int {
        switch axis {
        case .perPixelChannels:
            return same(.softmax, [input], options: .softmax(beta: 1))
        case .flattened(let groups, let temperature):
            guard groups >= 1, shape.count % groups == 0 else { throw refuse("softmax groups=\(groups) do not divide \(shape.count) values") }
            var x = reshape(transpose(input, [0, 3, 1, 2]), to: [groups, shape.count / groups])
            if temperature != 1 { x = binary(.div, x, scalar: temperature) }
            let y = reshape(same(.softmax, [x], options: .softmax(beta: 1)), to: [1, shape.channels, shape.height, shape.width])
            return transpose(y, [0, 2, 3, 1])
        }
    }
}
