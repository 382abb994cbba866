import FoldKitCore

/// BatchNormalization, always read as its own `.batchNorm` layer (whether it folds into the layer
/// before it is decided for every format by `BatchNormAttachment`, FoldKit's Passes), and
/// LayerNormalization and GroupNormalization over the channel axis (never folded: their scale depends on
/// the input).
enum KerasNormalizationLayers {
    /// Keras BatchNormalization at inference: y = gamma * (x - mean) / sqrt(variance + epsilon) + beta
    /// with the layer's own epsilon (default 1e-3). Weights in stored order: gamma (if scale), beta
    /// (if center), moving mean, moving variance. Keras 1 stores gamma, beta, running_mean,
    /// running_std; despite its name running_std holds the moving *variance* (Keras 1.x passes it
    /// to K.batch_normalization as the variance), so it is used as the variance, as DL4J does.
    static func batchNormalization(_ layer: KerasLayerDescription, input: Int, _ context: inout KerasTranslationContext) throws {
        let values = context.config(layer)
        let config = KerasBatchNormConfig(values)
        let shape = context.shape(of: input)
        let channels = shape.channels
        if let mode = config.keras1Mode, mode != 0 {
            throw values.error(
                .unsupported, "Keras 1 BatchNormalization mode \(mode) normalises with batch statistics at inference", expected: "mode 0",
                found: "mode \(mode)")
        }
        let probe = context.isVector(shape) ? ActivationShape.vector(channels) : ActivationShape(channels: channels, height: 2, width: 2)
        try context.checkChannelAxis(layer, axisValue: config.axis, default: -1, shape: probe, what: "batch norm axis")
        let roles = config.roles
        let arrays = try context.weightArrays(layer, expected: roles.count, roles: roles.joined(separator: ", "))
        var tensors: [String: WeightTensor] = [:]
        for (role, array) in zip(roles, arrays) { tensors[role] = try context.vector(layer, array, channels) }
        guard let mean = tensors["moving_mean"], let variance = tensors["moving_variance"] else {
            throw values.error(.badInput, "batch norm statistics missing")
        }
        if context.firstEpsilon == nil { context.firstEpsilon = config.epsilon }
        let bn = BatchNorm(
            gamma: tensors["gamma"], beta: tensors["beta"], mean: mean, variance: variance,
            convention: EpsilonConvention(epsilon: config.epsilon, placement: .insideSqrt))
        try context.emit(layer, .batchNorm(bn), [input])
    }

    /// LayerNormalization (keras/src/layers/normalization/layer_normalization.py) over the channel axis:
    /// at each position, y = (x - mean) / sqrt(variance + epsilon) * gamma + beta with the mean and the
    /// biased variance over the channels. Weights in stored order: gamma (if scale), beta (if center).
    /// Keras 3's `rms_scaling` and normalisation over other or several axes are refused.
    static func layerNormalization(_ layer: KerasLayerDescription, input: Int, _ context: inout KerasTranslationContext) throws {
        let values = context.config(layer)
        let shape = context.shape(of: input)
        let channels = shape.channels
        if values["rms_scaling"]?.bool == true {
            throw values.error(.unsupported, "LayerNormalization with rms_scaling is not supported", expected: "rms_scaling false")
        }
        let probe = context.isVector(shape) ? ActivationShape.vector(channels) : ActivationShape(channels: channels, height: 2, width: 2)
        try context.checkChannelAxis(layer, axisValue: values["axis"], default: -1, shape: probe, what: "layer normalization axis")
        let scale = values["scale"]?.bool ?? true
        let center = values["center"]?.bool ?? true
        let roles = (scale ? ["gamma"] : []) + (center ? ["beta"] : [])
        let arrays = roles.isEmpty ? [] : try context.weightArrays(layer, expected: roles.count, roles: roles.joined(separator: ", "))
        var tensors: [String: WeightTensor] = [:]
        for (role, array) in zip(roles, arrays) { tensors[role] = try context.vector(layer, array, channels) }
        let epsilon = values["epsilon"]?.double ?? 1e-3
        try context.emit(
            layer, .layerNormalization(LayerNormalization(gamma: tensors["gamma"], beta: tensors["beta"], epsilon: epsilon)), [input])
    }

    /// GroupNormalization (keras/src/layers/normalization/group_normalization.py; tf.keras 2's
    /// tf_keras/src/layers/normalization/group_normalization.py computes the same) over the channel axis of
    /// an image: the channels split into `groups` contiguous groups, and per group
    /// y = (x - mean) / sqrt(variance + epsilon) * gamma + beta with the mean and the biased variance over
    /// H, W and the group's channels. Weights in stored order: gamma (if scale), beta (if center).
    /// `groups` -1 (Keras 3's instance normalization) is one group per channel; an axis other than the
    /// channels and an input of a rank other than 4 are refused.
    static func groupNormalization(_ layer: KerasLayerDescription, input: Int, _ context: inout KerasTranslationContext) throws {
        let values = context.config(layer)
        let shape = context.shape(of: input)
        let channels = shape.channels
        let rank = context.kerasRank(of: input)
        if rank != 4 {
            throw values.error(
                .unsupported, "GroupNormalization of a rank-\(rank) tensor is not supported", expected: "a rank-4 image",
                found: "rank \(rank)")
        }
        try context.checkChannelAxis(
            layer, axisValue: values["axis"], default: -1, shape: ActivationShape(channels: channels, height: 2, width: 2),
            what: "group normalization axis")
        let configured = values["groups"]?.int ?? 32
        let groups = configured == -1 ? channels : configured
        guard groups >= 1, channels % groups == 0 else {
            throw values.error(
                .badInput, "GroupNormalization groups must divide the channels", expected: "a divisor of \(channels)", found: "\(configured)")
        }
        let scale = values["scale"]?.bool ?? true
        let center = values["center"]?.bool ?? true
        let roles = (scale ? ["gamma"] : []) + (center ? ["beta"] : [])
        let arrays = roles.isEmpty ? [] : try context.weightArrays(layer, expected: roles.count, roles: roles.joined(separator: ", "))
        var tensors: [String: WeightTensor] = [:]
        for (role, array) in zip(roles, arrays) { tensors[role] = try context.vector(layer, array, channels) }
        let epsilon = values["epsilon"]?.double ?? 1e-3
        let normalization = GroupNormalization(groups: groups, gamma: tensors["gamma"], beta: tensors["beta"], epsilon: epsilon)
        try context.emit(layer, .groupNormalization(normalization), [input])
    }
}
