import FoldKitCore
import Foundation

/// Turns a parsed Keras model description plus its stored weights into FoldKit layers.
///
/// Activations inside FoldKit are channel-major (C x H x W). Channels-last Keras models keep that
/// convention at the edges only: Flatten and Reshape become `.reshape` with `.channelsLast` order,
/// kernels are transposed to OIHW, and the input (H, W, C) is recorded as C x H x W.
struct KerasGraphTranslator {
    let model: KerasModelDescription
    let store: KerasWeightStore
    let descriptionFile: String
    let channelsFirst: Bool
    /// Rotate convolution kernels by 180 degrees (Theano trained with true convolution).
    let flipKernels: Bool
    let kerasMajor: Int

    private(set) var builder: NetworkBuilder
    /// Keras layer name -> index of the FoldKit layer producing its output.
    private var produced: [String: Int] = [:]
    private var consumers: [String: [KerasLayerDescription]] = [:]
    private var foldedBatchNorms: Set<String> = []
    private(set) var weightLayersUsed: Set<String> = []
    private(set) var firstEpsilon: Double?

    init(model: KerasModelDescription, store: KerasWeightStore, descriptionFile: String, inputShape: ActivationShape,
         channelsFirst: Bool, flipKernels: Bool, kerasMajor: Int) {
        self.model = model
        self.store = store
        self.descriptionFile = descriptionFile
        self.channelsFirst = channelsFirst
        self.flipKernels = flipKernels
        self.kerasMajor = kerasMajor
        self.builder = NetworkBuilder(inputShape: inputShape)
        produced[model.inputName] = Network.inputIndex
        for layer in model.layers {
            for input in layer.inboundLayers { consumers[input, default: []].append(layer) }
        }
    }

    /// Translates every layer (in dependency order) and returns the output layer indices.
    mutating func translate() throws -> [Int] {
        var pending = model.layers
        while !pending.isEmpty {
            var next: [KerasLayerDescription] = []
            for layer in pending {
                if produced[layer.name] != nil { continue }  // folded batch norm
                if layer.inboundLayers.allSatisfy({ produced[$0] != nil }) {
                    try translate(layer)
                } else {
                    next.append(layer)
                }
            }
            if next.count == pending.count {
                let missing = Set(next.flatMap { $0.inboundLayers }).filter { produced[$0] == nil }.sorted()
                throw FoldKitError(.badInput, "layers read from unknown or cyclic inputs: \(missing)", file: descriptionFile,
                                   layer: next.first?.label)
            }
            pending = next
        }
        return try model.outputNames.map { name in
            guard let index = produced[name] else {
                throw FoldKitError(.badInput, "model output '\(name)' is not a layer of the model", file: descriptionFile)
            }
            guard index != Network.inputIndex else {
                throw FoldKitError(.unsupported, "model output '\(name)' is the input itself", file: descriptionFile)
            }
            return index
        }
    }

    // MARK: - dispatch

    private mutating func translate(_ layer: KerasLayerDescription) throws {
        let inputs = layer.inboundLayers.compactMap { produced[$0] }
        func single() throws -> Int {
            guard inputs.count == 1, let first = inputs.first else {
                throw error(.badInput, layer, "layer takes one input", expected: "1", found: "\(inputs.count)")
            }
            return first
        }
        switch layer.className {
        case "InputLayer":
            throw error(.unsupported, layer, "only models with exactly one input are supported")
        case "Dropout", "SpatialDropout1D", "SpatialDropout2D", "GaussianNoise", "GaussianDropout", "AlphaDropout", "ActivityRegularization":
            try emit(layer, .identity(reason: "dropout"), [single()])
        case "Activation":
            guard let name = layer.config["activation"]?.string ?? layer.config["activation"]?["class_name"]?.string else {
                throw error(.badInput, layer, "Activation layer has no activation name")
            }
            try emitActivation(layer, try activation(name, layer), input: single())
        case "ReLU":
            let maxValue = layer.config["max_value"]?.double
            let slope = layer.config["negative_slope"]?.double ?? 0
            let threshold = layer.config["threshold"]?.double ?? 0
            let kind: Activation
            if slope == 0 && threshold == 0 && maxValue == nil { kind = .relu }
            else if slope == 0 && threshold == 0 && maxValue == 6 { kind = .relu6 }
            else { kind = .clippedRelu(maxValue: maxValue.map { Float($0) }, negativeSlope: Float(slope), threshold: Float(threshold)) }
            try emit(layer, .activation(kind), [single()])
        case "LeakyReLU":
            let slope = layer.config["negative_slope"]?.double ?? layer.config["alpha"]?.double ?? 0.3
            try emit(layer, .activation(.leaky(slope: Float(slope))), [single()])
        case "ELU":
            try emit(layer, .activation(.elu(alpha: Float(layer.config["alpha"]?.double ?? 1))), [single()])
        case "ThresholdedReLU":
            let theta = layer.config["theta"]?.double ?? 1
            try emit(layer, .activation(.clippedRelu(maxValue: nil, negativeSlope: 0, threshold: Float(theta))), [single()])
        case "PReLU":
            try prelu(layer, input: single())
        case "Softmax":
            let input = try single()
            try checkChannelAxis(layer, axisValue: layer.config["axis"], default: -1, shape: builder.shape(of: input), what: "softmax axis")
            try emit(layer, .softmax(.perPixelChannels), [input])
        case "Conv2D", "Convolution2D":
            try convolution(layer, input: single())
        case "DepthwiseConv2D":
            try depthwise(layer, input: single())
        case "SeparableConv2D", "SeparableConvolution2D":
            try separable(layer, input: single())
        case "BatchNormalization":
            let input = try single()
            let shape = builder.shape(of: input)
            let bn = try batchNorm(layer, channels: shape.channels, inputIsVector: isVector(shape))
            try emit(layer, .batchNorm(bn), [input])
        case "Dense":
            try dense(layer, input: single())
        case "MaxPooling2D", "MaxPool2D", "AveragePooling2D", "AvgPool2D":
            try pooling(layer, input: single())
        case "GlobalAveragePooling2D", "GlobalAvgPool2D":
            try emit(layer, .globalAveragePool, [single()])
        case "GlobalMaxPooling2D", "GlobalMaxPool2D":
            try emit(layer, .globalMaxPool, [single()])
        case "ZeroPadding2D":
            try emit(layer, .zeroPad(try edges(layer, key: "padding", default: 1)), [single()])
        case "Cropping2D":
            try emit(layer, .crop(try edges(layer, key: "cropping", default: 0)), [single()])
        case "UpSampling2D":
            if let mode = layer.config["interpolation"]?.string, mode != "nearest" {
                throw error(.unsupported, layer, "only nearest-neighbour upsampling is supported", expected: "nearest", found: mode)
            }
            let (sy, sx) = try pair(layer, "size", default: (2, 2))
            try emit(layer, .upsample(Upsample(strideY: sy, strideX: sx)), [single()])
        case "Concatenate":
            try concatenate(layer, inputs: inputs, axisValue: layer.config["axis"])
        case "Add":
            try add(layer, inputs: inputs)
        case "Multiply":
            try multiply(layer, inputs: inputs)
        case "Merge":
            switch layer.config["mode"]?.string ?? "sum" {
            case "sum": try add(layer, inputs: inputs)
            case "mul": try multiply(layer, inputs: inputs)
            case "concat": try concatenate(layer, inputs: inputs, axisValue: layer.config["concat_axis"])
            case let mode: throw error(.unsupported, layer, "Keras 1 Merge mode '\(mode)' is not supported", expected: "sum, mul or concat", found: mode)
            }
        case "Flatten":
            let input = try single()
            let shape = builder.shape(of: input)
            try emit(layer, .reshape(Reshape(target: .vector(shape.count), order: order)), [input])
        case "Reshape":
            try reshape(layer, input: single())
        case "Lambda":
            guard isSpaceToDepthX2(layer) else {
                throw error(.unsupported, layer, "Lambda layers run arbitrary Python and are not supported (only YAD2K's space_to_depth_x2 is recognised)")
            }
            guard !channelsFirst else { throw error(.unsupported, layer, "space_to_depth_x2 in a channels-first model is not supported") }
            try emit(layer, .reorg(Reorg(stride: 2, flavor: .spaceToDepth)), [single()])
        default:
            let module = layer.module.map { " from module '\($0)'" } ?? ""
            throw error(.unsupported, layer, "layer class '\(layer.className)'\(module) is not supported (custom or unknown layer)")
        }
    }

    // MARK: - convolutions

    private mutating func convolution(_ layer: KerasLayerDescription, input: Int) throws {
        let cfg = layer.config
        let inShape = builder.shape(of: input)
        guard let filters = cfg["filters"]?.int ?? cfg["nb_filter"]?.int else { throw error(.badInput, layer, "no filters / nb_filter") }
        let (kh, kw) = cfg["kernel_size"] != nil ? try pair(layer, "kernel_size", default: (1, 1))
            : (cfg["nb_row"]?.int ?? 0, cfg["nb_col"]?.int ?? 0)
        let (sy, sx) = try pair(layer, cfg["strides"] != nil ? "strides" : "subsample", default: (1, 1))
        let (dy, dx) = try pair(layer, cfg["dilation_rate"] != nil ? "dilation_rate" : "atrous_rate", default: (1, 1))
        let groups = cfg["groups"]?.int ?? 1
        let useBias = cfg["use_bias"]?.bool ?? cfg["bias"]?.bool ?? true
        let act = try inlineActivation(layer)
        let padding = try spatialPadding(layer, inShape, kernel: (kh, kw), stride: (sy, sx), dilation: (dy, dx))
        guard groups >= 1, inShape.channels % groups == 0 else {
            throw error(.badInput, layer, "groups must divide the input channels", found: "groups=\(groups), channels=\(inShape.channels)")
        }
        let perGroup = inShape.channels / groups
        let arrays = try weightArrays(layer, expected: useBias ? 2 : 1, roles: useBias ? "kernel, bias" : "kernel")
        let theanoOrder = cfg["dim_ordering"]?.string == "th"
        let kernel: [Float]
        if theanoOrder {
            try expectShape(layer, arrays[0], [filters, perGroup, kh, kw])
            kernel = KerasLayout.oihw(arrays[0].values, outChannels: filters, inChannels: perGroup, kh: kh, kw: kw, flip: flipKernels)
        } else {
            try expectShape(layer, arrays[0], [kh, kw, perGroup, filters])
            kernel = KerasLayout.hwioToOIHW(arrays[0].values, kh: kh, kw: kw, inChannels: perGroup, outChannels: filters, flip: flipKernels)
        }
        let bias = useBias ? try vector(layer, arrays[1], filters) : nil
        let conv = Convolution(
            inputChannels: inShape.channels, outputChannels: filters, kernelHeight: kh, kernelWidth: kw, strideY: sy, strideX: sx,
            dilationY: dy, dilationX: dx, padding: padding, groups: groups,
            weights: WeightTensor(shape: [filters, perGroup, kh, kw], values: kernel), bias: bias)
        try emitConvolution(layer, conv, activation: act, input: input)
    }

    private mutating func depthwise(_ layer: KerasLayerDescription, input: Int) throws {
        let cfg = layer.config
        let inShape = builder.shape(of: input)
        let (kh, kw) = try pair(layer, "kernel_size", default: (1, 1))
        let (sy, sx) = try pair(layer, "strides", default: (1, 1))
        let (dy, dx) = try pair(layer, "dilation_rate", default: (1, 1))
        let m = cfg["depth_multiplier"]?.int ?? 1
        let useBias = cfg["use_bias"]?.bool ?? true
        let act = try inlineActivation(layer)
        let padding = try spatialPadding(layer, inShape, kernel: (kh, kw), stride: (sy, sx), dilation: (dy, dx))
        let c = inShape.channels
        let arrays = try weightArrays(layer, expected: useBias ? 2 : 1, roles: useBias ? "depthwise_kernel, bias" : "depthwise_kernel")
        try expectShape(layer, arrays[0], [kh, kw, c, m])
        let kernel = KerasLayout.depthwiseToOIHW(arrays[0].values, kh: kh, kw: kw, inChannels: c, multiplier: m, flip: flipKernels)
        let conv = Convolution(
            inputChannels: c, outputChannels: c * m, kernelHeight: kh, kernelWidth: kw, strideY: sy, strideX: sx,
            dilationY: dy, dilationX: dx, padding: padding, groups: c,
            weights: WeightTensor(shape: [c * m, 1, kh, kw], values: kernel), bias: useBias ? try vector(layer, arrays[1], c * m) : nil)
        try emitConvolution(layer, conv, activation: act, input: input)
    }

    /// SeparableConv2D = depthwise (kh x kw, strides, dilation, padding, no bias) named `<name>_depthwise`,
    /// then pointwise 1x1 (+ bias, batch norm, activation) under the layer's own name.
    private mutating func separable(_ layer: KerasLayerDescription, input: Int) throws {
        let cfg = layer.config
        let inShape = builder.shape(of: input)
        guard let filters = cfg["filters"]?.int ?? cfg["nb_filter"]?.int else { throw error(.badInput, layer, "no filters") }
        let (kh, kw) = cfg["kernel_size"] != nil ? try pair(layer, "kernel_size", default: (1, 1))
            : (cfg["nb_row"]?.int ?? 0, cfg["nb_col"]?.int ?? 0)
        let (sy, sx) = try pair(layer, cfg["strides"] != nil ? "strides" : "subsample", default: (1, 1))
        let (dy, dx) = try pair(layer, "dilation_rate", default: (1, 1))
        let m = cfg["depth_multiplier"]?.int ?? 1
        let useBias = cfg["use_bias"]?.bool ?? cfg["bias"]?.bool ?? true
        let act = try inlineActivation(layer)
        let padding = try spatialPadding(layer, inShape, kernel: (kh, kw), stride: (sy, sx), dilation: (dy, dx))
        let c = inShape.channels
        let arrays = try weightArrays(layer, expected: useBias ? 3 : 2,
                                      roles: useBias ? "depthwise_kernel, pointwise_kernel, bias" : "depthwise_kernel, pointwise_kernel")
        try expectShape(layer, arrays[0], [kh, kw, c, m])
        try expectShape(layer, arrays[1], [1, 1, c * m, filters])
        let depthwise = Convolution(
            inputChannels: c, outputChannels: c * m, kernelHeight: kh, kernelWidth: kw, strideY: sy, strideX: sx,
            dilationY: dy, dilationX: dx, padding: padding, groups: c,
            weights: WeightTensor(shape: [c * m, 1, kh, kw],
                                  values: KerasLayout.depthwiseToOIHW(arrays[0].values, kh: kh, kw: kw, inChannels: c, multiplier: m, flip: flipKernels)),
            bias: nil)
        let dwIndex = try builder.append(name: "\(layer.name)_depthwise", kind: .convolution(depthwise), inputs: [input],
                                         source: LayerSource(file: descriptionFile, section: layer.className))
        let pointwise = Convolution(
            inputChannels: c * m, outputChannels: filters, kernelHeight: 1, kernelWidth: 1,
            weights: WeightTensor(shape: [filters, c * m, 1, 1],
                                  values: KerasLayout.hwioToOIHW(arrays[1].values, kh: 1, kw: 1, inChannels: c * m, outChannels: filters)),
            bias: useBias ? try vector(layer, arrays[2], filters) : nil)
        try emitConvolution(layer, pointwise, activation: act, input: dwIndex)
    }

    /// Appends a convolution, folding a following BatchNormalization into it when that is exact and
    /// unambiguous (see `foldableBatchNorm`), and splitting off a softmax activation.
    private mutating func emitConvolution(_ layer: KerasLayerDescription, _ conv: Convolution, activation act: ActivationChoice, input: Int) throws {
        try emitParameterLayer(layer, activation: act, outputs: conv.outputChannels, vector: false, input: input) { batchNorm, activation in
            var conv = conv
            conv.batchNorm = batchNorm
            conv.activation = activation
            return .convolution(conv)
        }
    }

    /// The shared tail of Conv2D and Dense: when the layer's own activation is linear, a directly following
    /// foldable BatchNormalization is merged into it (its name then maps to the same layer); a softmax
    /// activation becomes a separate layer after a linear `<name>_preact`.
    private mutating func emitParameterLayer(
        _ layer: KerasLayerDescription, activation act: ActivationChoice, outputs: Int, vector: Bool, input: Int,
        kind: (BatchNorm?, Activation) -> LayerKind
    ) throws {
        var section = layer.className
        var merged: KerasLayerDescription?
        var batchNorm: BatchNorm?
        if case .plain(.linear) = act, let (bnLayer, bn) = try foldableBatchNorm(after: layer, channels: outputs, vector: vector) {
            batchNorm = bn
            section += "+BatchNormalization"
            merged = bnLayer
        }
        let source = LayerSource(file: descriptionFile, section: section)
        switch act {
        case .plain(let a):
            let index = try builder.append(name: layer.name, kind: kind(batchNorm, a), inputs: [input], source: source)
            produced[layer.name] = index
            if let merged { produced[merged.name] = index }
        case .softmax:
            let pre = try builder.append(name: "\(layer.name)_preact", kind: kind(nil, .linear), inputs: [input], source: source)
            try emit(layer, .softmax(.perPixelChannels), [pre])
        }
    }

    // MARK: - dense

    private mutating func dense(_ layer: KerasLayerDescription, input: Int) throws {
        let cfg = layer.config
        let inShape = builder.shape(of: input)
        guard let units = cfg["units"]?.int ?? cfg["output_dim"]?.int else { throw error(.badInput, layer, "no units / output_dim") }
        let useBias = cfg["use_bias"]?.bool ?? cfg["bias"]?.bool ?? true
        let act = try inlineActivation(layer)
        let arrays = try weightArrays(layer, expected: useBias ? 2 : 1, roles: useBias ? "kernel, bias" : "kernel")
        let bias = useBias ? try vector(layer, arrays[1], units) : nil
        if isVector(inShape) {
            let n = inShape.channels
            try expectShape(layer, arrays[0], [n, units])
            let fc = FullyConnected(inputCount: n, outputCount: units,
                                    weights: WeightTensor(shape: [units, n], values: KerasLayout.transpose(arrays[0].values, rows: n, columns: units)),
                                    bias: bias)
            try emitParameterLayer(layer, activation: act, outputs: units, vector: true, input: input) { batchNorm, activation in
                var fc = fc
                fc.batchNorm = batchNorm
                fc.activation = activation
                return .fullyConnected(fc)
            }
            return
        }
        guard !channelsFirst else {
            throw error(.unsupported, layer, "Dense on a channels-first feature map (applies to the width axis) is not supported", found: "input \(inShape)")
        }
        // Dense on (H, W, C) acts on the last axis: a 1x1 convolution.
        let c = inShape.channels
        try expectShape(layer, arrays[0], [c, units])
        let conv = Convolution(inputChannels: c, outputChannels: units, kernelHeight: 1, kernelWidth: 1,
                               weights: WeightTensor(shape: [units, c, 1, 1], values: KerasLayout.transpose(arrays[0].values, rows: c, columns: units)),
                               bias: bias)
        try emitConvolution(layer, conv, activation: act, input: input)
    }

    // MARK: - batch norm

    /// The BatchNormalization that can be folded into `producer`: its only consumer, not a model
    /// output, normalising over the channel axis.
    private mutating func foldableBatchNorm(after producer: KerasLayerDescription, channels: Int, vector: Bool) throws -> (KerasLayerDescription, BatchNorm)? {
        guard let users = consumers[producer.name], users.count == 1, let next = users.first, next.className == "BatchNormalization",
              next.inboundLayers == [producer.name], !model.outputNames.contains(producer.name) else { return nil }
        let shape = vector ? ActivationShape.vector(channels) : ActivationShape(channels: channels, height: 2, width: 2)
        guard (try? checkChannelAxis(next, axisValue: next.config["axis"], default: -1, shape: shape, what: "batch norm axis")) != nil,
              (next.config["mode"]?.int ?? 0) == 0 else { return nil }
        let bn = try batchNorm(next, channels: channels, inputIsVector: vector)
        foldedBatchNorms.insert(next.name)
        return (next, bn)
    }

    /// Keras BatchNormalization at inference: y = gamma * (x - mean) / sqrt(variance + epsilon) + beta
    /// with the layer's own epsilon (default 1e-3). Weights in stored order: gamma (if scale), beta
    /// (if center), moving mean, moving variance. Keras 1 stores gamma, beta, running_mean,
    /// running_std; despite its name running_std holds the moving *variance* (Keras 1.x passes it
    /// to K.batch_normalization as the variance), so it is used as the variance, as DL4J does.
    private mutating func batchNorm(_ layer: KerasLayerDescription, channels: Int, inputIsVector: Bool) throws -> BatchNorm {
        let cfg = layer.config
        if let mode = cfg["mode"]?.int, mode != 0 {
            throw error(.unsupported, layer, "Keras 1 BatchNormalization mode \(mode) normalises with batch statistics at inference", expected: "mode 0", found: "mode \(mode)")
        }
        let probe = inputIsVector ? ActivationShape.vector(channels) : ActivationShape(channels: channels, height: 2, width: 2)
        try checkChannelAxis(layer, axisValue: cfg["axis"], default: -1, shape: probe, what: "batch norm axis")
        let epsilon = cfg["epsilon"]?.double ?? 1e-3
        let keras1 = cfg["mode"] != nil
        let scale = keras1 ? true : (cfg["scale"]?.bool ?? true)
        let center = keras1 ? true : (cfg["center"]?.bool ?? true)
        var roles: [String] = []
        if scale { roles.append("gamma") }
        if center { roles.append("beta") }
        roles += ["moving_mean", "moving_variance"]
        let arrays = try weightArrays(layer, expected: roles.count, roles: roles.joined(separator: ", "))
        var tensors: [String: WeightTensor] = [:]
        for (role, array) in zip(roles, arrays) { tensors[role] = try vector(layer, array, channels) }
        guard let mean = tensors["moving_mean"], let variance = tensors["moving_variance"] else {
            throw error(.badInput, layer, "batch norm statistics missing")
        }
        if firstEpsilon == nil { firstEpsilon = epsilon }
        return BatchNorm(gamma: tensors["gamma"], beta: tensors["beta"], mean: mean, variance: variance,
                         convention: EpsilonConvention(epsilon: epsilon, placement: .insideSqrt))
    }

    // MARK: - other layers

    private mutating func prelu(_ layer: KerasLayerDescription, input: Int) throws {
        let shape = builder.shape(of: input)
        let arrays = try weightArrays(layer, expected: 1, roles: "alpha")
        let a = arrays[0]
        if isVector(shape) && shape.height == 1 {
            if a.values.count == shape.channels {
                try emit(layer, .prelu(alpha: WeightTensor(shape: [shape.channels], values: a.values)), [input])
                return
            }
        }
        // Stored shape = input shape without batch, shared axes set to 1: (H, W, C) or (C, H, W).
        let dims = a.shape.count == 3 ? a.shape : (a.shape.count == 1 && isVector(shape) ? [1, 1, a.shape[0]] : [])
        guard dims.count == 3 else {
            throw error(.badInput, layer, "PReLU alpha shape", expected: "rank 3", found: "\(a.shape)")
        }
        let (ah, aw, ac) = channelsFirst ? (dims[1], dims[2], dims[0]) : (dims[0], dims[1], dims[2])
        guard [1, shape.height].contains(ah), [1, shape.width].contains(aw), [1, shape.channels].contains(ac) else {
            throw error(.badInput, layer, "PReLU alpha shape does not fit the input", expected: "broadcastable to \(shape)", found: "\(a.shape)")
        }
        if ah == 1 && aw == 1 && ac == shape.channels {
            try emit(layer, .prelu(alpha: WeightTensor(shape: [ac], values: a.values)), [input])
            return
        }
        var full = [Float](repeating: 0, count: shape.count)
        for c in 0..<shape.channels {
            for y in 0..<shape.height {
                for x in 0..<shape.width {
                    let (cy, cx, cc) = (ah == 1 ? 0 : y, aw == 1 ? 0 : x, ac == 1 ? 0 : c)
                    let src = channelsFirst ? (cc * ah + cy) * aw + cx : (cy * aw + cx) * ac + cc
                    full[(c * shape.height + y) * shape.width + x] = a.values[src]
                }
            }
        }
        try emit(layer, .prelu(alpha: WeightTensor(shape: [shape.channels, shape.height, shape.width], values: full)), [input])
    }

    private mutating func pooling(_ layer: KerasLayerDescription, input: Int) throws {
        let shape = builder.shape(of: input)
        let (kh, kw) = try pair(layer, "pool_size", default: (2, 2))
        let strides = layer.config["strides"]
        let (sy, sx) = (strides == nil || strides?.isNull == true) ? (kh, kw) : try pair(layer, "strides", default: (kh, kw))
        let padding = try spatialPadding(layer, shape, kernel: (kh, kw), stride: (sy, sx), dilation: (1, 1))
        let kind: Pooling.Kind = layer.className.hasPrefix("Max") ? .max : .average
        try emit(layer, .pooling(Pooling(kind: kind, kernelHeight: kh, kernelWidth: kw, strideY: sy, strideX: sx, padding: padding,
                                         countIncludesPadding: false)), [input])
    }

    private mutating func concatenate(_ layer: KerasLayerDescription, inputs: [Int], axisValue: KerasJSON?) throws {
        guard inputs.count >= 1 else { throw error(.badInput, layer, "Concatenate has no inputs") }
        let shapes = inputs.map { builder.shape(of: $0) }
        for shape in shapes {
            try checkChannelAxis(layer, axisValue: axisValue, default: -1, shape: shape, what: "concatenation axis")
        }
        try emit(layer, .concatenation(Concatenation()), inputs)
    }

    private mutating func add(_ layer: KerasLayerDescription, inputs: [Int]) throws {
        let shapes = inputs.map { builder.shape(of: $0) }
        guard inputs.count >= 2, let first = shapes.first, shapes.allSatisfy({ $0 == first }) else {
            throw error(.unsupported, layer, "Add needs two or more inputs of the same shape", found: shapes.map { $0.description }.joined(separator: ", "))
        }
        try emit(layer, .sum(ElementwiseSum()), inputs)
    }

    private mutating func multiply(_ layer: KerasLayerDescription, inputs: [Int]) throws {
        guard inputs.count == 2 else {
            throw error(.unsupported, layer, "Multiply is supported for two inputs", found: "\(inputs.count) inputs")
        }
        try emit(layer, .product, inputs)
    }

    private mutating func reshape(_ layer: KerasLayerDescription, input: Int) throws {
        let shape = builder.shape(of: input)
        guard let raw = layer.config["target_shape"]?.array else { throw error(.badInput, layer, "Reshape has no target_shape") }
        var dims = raw.map { $0.int ?? -1 }
        let known = dims.filter { $0 != -1 }.reduce(1, *)
        if let unknown = dims.firstIndex(of: -1) {
            guard known > 0, shape.count % known == 0 else {
                throw error(.badInput, layer, "Reshape target does not divide the element count", expected: "divisor of \(shape.count)", found: "\(raw)")
            }
            dims[unknown] = shape.count / known
        }
        let target: ActivationShape
        switch (dims.count, channelsFirst) {
        case (1, _): target = .vector(dims[0])
        case (2, false): target = ActivationShape(channels: dims[1], height: 1, width: dims[0])
        case (3, false): target = ActivationShape(channels: dims[2], height: dims[0], width: dims[1])
        case (let n, false) where n > 3:
            // (H, W, d3, d4, ...) keeps the channels-last element order with the trailing axes merged into channels.
            target = ActivationShape(channels: dims[2...].reduce(1, *), height: dims[0], width: dims[1])
        case (3, true): target = ActivationShape(channels: dims[0], height: dims[1], width: dims[2])
        default:
            throw error(.unsupported, layer, "Reshape target of rank \(dims.count) in a \(channelsFirst ? "channels-first" : "channels-last") model", found: "\(dims)")
        }
        try emit(layer, .reshape(Reshape(target: target, order: order)), [input])
    }

    /// YAD2K wrote the YOLOv2 passthrough as `Lambda(space_to_depth_x2, ..., name='space_to_depth_x2')`.
    /// Recognised by the layer name or by the function's name in the serialized function (plain text,
    /// or inside the base64 marshal bytes that Keras writes for Python functions).
    private func isSpaceToDepthX2(_ layer: KerasLayerDescription) -> Bool {
        if layer.name.contains("space_to_depth_x2") { return true }
        let needle = "space_to_depth_x2"
        for text in (layer.config["function"]?.allStrings ?? []) {
            if text.contains(needle) { return true }
            let compact = text.filter { !$0.isWhitespace }
            if let data = Data(base64Encoded: compact), data.range(of: Data(needle.utf8)) != nil { return true }
        }
        return false
    }

    // MARK: - helpers

    private enum ActivationChoice { case plain(Activation), softmax }

    private func inlineActivation(_ layer: KerasLayerDescription) throws -> ActivationChoice {
        guard let value = layer.config["activation"], !value.isNull else { return .plain(.linear) }
        guard let name = value.string ?? value["class_name"]?.string ?? value["config"]?.string else {
            throw error(.unsupported, layer, "activation is not a built-in name", found: "\(value)")
        }
        return try activation(name, layer)
    }

    /// Keras built-in activation names. Keras 3 changed hard_sigmoid to relu6(x + 3) / 6, which
    /// FoldKit has no kernel for, so it is refused for Keras 3 files.
    private func activation(_ name: String, _ layer: KerasLayerDescription) throws -> ActivationChoice {
        switch name {
        case "linear": return .plain(.linear)
        case "relu": return .plain(.relu)
        case "relu6": return .plain(.relu6)
        case "sigmoid": return .plain(.logistic)
        case "tanh": return .plain(.tanh)
        case "elu": return .plain(.elu(alpha: 1))
        case "selu": return .plain(.kerasSelu)
        case "softplus": return .plain(.softplus)
        case "swish", "silu": return .plain(.swish)
        case "mish": return .plain(.mish)
        case "leaky_relu": return .plain(.leaky(slope: 0.2))
        case "softmax": return .softmax
        case "hard_sigmoid" where kerasMajor < 3: return .plain(.hardSigmoid)
        default:
            throw error(.unsupported, layer, "activation '\(name)' is not supported\(name == "hard_sigmoid" ? " (Keras 3 defines it as relu6(x + 3) / 6)" : "")")
        }
    }

    private mutating func emitActivation(_ layer: KerasLayerDescription, _ choice: ActivationChoice, input: Int) throws {
        switch choice {
        case .plain(let a): try emit(layer, .activation(a), [input])
        case .softmax: try emit(layer, .softmax(.perPixelChannels), [input])
        }
    }

    @discardableResult
    private mutating func emit(_ layer: KerasLayerDescription, _ kind: LayerKind, _ inputs: [Int]) throws -> Int {
        let index = try builder.append(name: layer.name, kind: kind, inputs: inputs, source: LayerSource(file: descriptionFile, section: layer.className))
        produced[layer.name] = index
        return index
    }

    private var order: ElementOrder { channelsFirst ? .channelsFirst : .channelsLast }

    private func isVector(_ shape: ActivationShape) -> Bool { shape.height == 1 && shape.width == 1 }

    /// Checks that `axis` (Keras axis numbering including the batch axis, negative from the end) is the
    /// channel axis of a tensor of `shape` (rank 1 for C x 1 x 1 vectors, else rank 3).
    private func checkChannelAxis(_ layer: KerasLayerDescription, axisValue: KerasJSON?, default defaultAxis: Int, shape: ActivationShape, what: String) throws {
        var axis = defaultAxis
        if let value = axisValue, !value.isNull {
            if let a = value.int { axis = a }
            else if let list = value.array, list.count == 1, let a = list[0].int { axis = a }
            else { throw error(.unsupported, layer, "\(what) over several axes", found: "\(value)") }
        }
        let allowed: [Int]
        if isVector(shape) {
            // A vector (N, C) or a (N, 1, 1, C) map: both the vector axis and the channel axis work.
            allowed = channelsFirst ? [1, -1, -3] : [-1, 1, 3]
        } else {
            allowed = channelsFirst ? [1, -3] : [-1, 3]
        }
        guard allowed.contains(axis) else {
            throw error(.unsupported, layer, "\(what) must be the channel axis", expected: channelsFirst ? "1" : "-1 or 3", found: "\(axis)")
        }
    }

    private func pair(_ layer: KerasLayerDescription, _ key: String, default d: (Int, Int)) throws -> (Int, Int) {
        guard let value = layer.config[key], !value.isNull else { return d }
        if let v = value.int { return (v, v) }
        if let list = value.array, list.count == 2, let a = list[0].int, let b = list[1].int { return (a, b) }
        throw error(.badInput, layer, "'\(key)' is not an integer or a pair", found: "\(value)")
    }

    /// 'valid' -> no padding; 'same' -> TensorFlow's rule (see `KerasLayout.samePadding`).
    private func spatialPadding(_ layer: KerasLayerDescription, _ shape: ActivationShape, kernel: (Int, Int), stride: (Int, Int), dilation: (Int, Int)) throws -> Padding2D {
        let mode = layer.config["padding"]?.string ?? layer.config["border_mode"]?.string ?? "valid"
        switch mode {
        case "valid": return .zero
        case "same":
            let v = KerasLayout.samePadding(input: shape.height, kernel: kernel.0, stride: stride.0, dilation: dilation.0)
            let h = KerasLayout.samePadding(input: shape.width, kernel: kernel.1, stride: stride.1, dilation: dilation.1)
            return Padding2D(top: v.before, left: h.before, bottom: v.after, right: h.after)
        default:
            throw error(.unsupported, layer, "padding mode '\(mode)' is not supported", expected: "valid or same", found: mode)
        }
    }

    /// ZeroPadding2D / Cropping2D amounts: n, (vertical, horizontal), ((top, bottom), (left, right)),
    /// or the Keras 1 dict {top_pad, bottom_pad, left_pad, right_pad}.
    private func edges(_ layer: KerasLayerDescription, key: String, default d: Int) throws -> Padding2D {
        guard let value = layer.config[key], !value.isNull else { return .uniform(d) }
        if let v = value.int { return .uniform(v) }
        if let object = value.object {
            let get = { (k: String) in object[k]?.int ?? 0 }
            return Padding2D(top: get("top_pad"), left: get("left_pad"), bottom: get("bottom_pad"), right: get("right_pad"))
        }
        if let list = value.array, list.count == 2 {
            if let a = list[0].int, let b = list[1].int { return Padding2D(top: a, left: b, bottom: a, right: b) }
            if let v = list[0].array, let h = list[1].array, v.count == 2, h.count == 2,
               let t = v[0].int, let b = v[1].int, let l = h[0].int, let r = h[1].int {
                return Padding2D(top: t, left: l, bottom: b, right: r)
            }
        }
        throw error(.badInput, layer, "'\(key)' is not n, (v, h) or ((top, bottom), (left, right))", found: "\(value)")
    }

    private mutating func weightArrays(_ layer: KerasLayerDescription, expected: Int, roles: String) throws -> [KerasWeightArray] {
        let arrays = try store.arrays(forLayer: layer.name)
        weightLayersUsed.insert(layer.name)
        guard arrays.count == expected else {
            throw FoldKitError(.badInput, "wrong number of weight arrays", file: store.file.path, layer: layer.label,
                               expected: "\(expected) (\(roles))", found: "\(arrays.count) \(arrays.map { "\($0.name) \($0.shape)" })")
        }
        return arrays
    }

    private func expectShape(_ layer: KerasLayerDescription, _ array: KerasWeightArray, _ shape: [Int]) throws {
        guard array.shape == shape else {
            throw FoldKitError(.badInput, "weight '\(array.name)' has the wrong shape", file: store.file.path, layer: layer.label,
                               expected: "\(shape)", found: "\(array.shape)")
        }
    }

    private func vector(_ layer: KerasLayerDescription, _ array: KerasWeightArray, _ count: Int) throws -> WeightTensor {
        try expectShape(layer, array, [count])
        return WeightTensor(shape: [count], values: array.values)
    }

    private func error(_ kind: FoldKitError.Kind, _ layer: KerasLayerDescription, _ message: String, expected: String? = nil, found: String? = nil) -> FoldKitError {
        FoldKitError(kind, message, file: descriptionFile, layer: layer.label, expected: expected, found: found)
    }
}
