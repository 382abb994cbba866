import FoldKitCore

/// What every layer family's translation reads and writes: the network being built, the Keras name ->
/// FoldKit layer map, the weight store (and which layers' weights were used), and the model-wide
/// conventions (channel order, Theano kernel flip, Keras major version).
struct KerasTranslationContext {
    let descriptionFile: String
    let store: KerasWeightStore
    let channelsFirst: Bool
    /// Rotate convolution kernels by 180 degrees (Theano trained with true convolution).
    let flipKernels: Bool
    let kerasMajor: Int

    private(set) var builder: NetworkBuilder
    /// Keras layer name -> index of the FoldKit layer producing its output.
    private(set) var produced: [String: Int] = [:]
    /// `KerasWeightStore.storageKey` of every layer whose weights were read.
    private(set) var weightLayersUsed: Set<String> = []
    /// The epsilon of the first batch norm read (the network's recorded convention).
    var firstEpsilon: Double?
    /// Keras ranks (batch included) of outputs that are not what their FoldKit shape suggests: a
    /// Reshape to (a, b) is rank 3, held as b x 1 x a. Others are rank 2 (vectors) or 4.
    private var kerasRanks: [Int: Int] = [:]

    init(
        descriptionFile: String, store: KerasWeightStore, inputName: String, inputShape: ActivationShape,
        channelsFirst: Bool, flipKernels: Bool, kerasMajor: Int
    ) {
        self.descriptionFile = descriptionFile
        self.store = store
        self.channelsFirst = channelsFirst
        self.flipKernels = flipKernels
        self.kerasMajor = kerasMajor
        self.builder = NetworkBuilder(inputShape: inputShape)
        produced[inputName] = Network.inputIndex
    }

    /// Element order of Flatten / Reshape: the model's own.
    var order: ElementOrder { channelsFirst ? .channelsFirst : .channelsLast }

    func shape(of index: Int) -> ActivationShape { builder.shape(of: index) }

    func config(_ layer: KerasLayerDescription) -> KerasLayerConfig {
        KerasLayerConfig(layer: layer, descriptionFile: descriptionFile)
    }

    func error(_ kind: FoldKitError.Kind, _ layer: KerasLayerDescription, _ message: String, expected: String? = nil, found: String? = nil)
        -> FoldKitError
    {
        config(layer).error(kind, message, expected: expected, found: found)
    }

    // MARK: - appending layers

    /// Appends `kind` under the Keras layer's name and class; the name now resolves to it.
    @discardableResult
    mutating func emit(_ layer: KerasLayerDescription, _ kind: LayerKind, _ inputs: [Int]) throws -> Int {
        let index = try builder.append(
            name: layer.name, kind: kind, inputs: inputs, source: LayerSource(file: descriptionFile, section: layer.className))
        produced[layer.name] = index
        // A layer that keeps its input's shape (an activation, an affine) keeps its Keras rank.
        if let first = inputs.first, let rank = kerasRanks[first], shape(of: index) == shape(of: first) { kerasRanks[index] = rank }
        return index
    }

    /// The Keras rank (batch included) of the output of FoldKit layer `index`: 2 for vectors, 3 after a
    /// Reshape to (a, b), else 4.
    func kerasRank(of index: Int) -> Int { kerasRanks[index] ?? (isVector(shape(of: index)) ? 2 : 4) }

    mutating func setKerasRank(_ rank: Int, of index: Int) { kerasRanks[index] = rank }

    /// Appends a helper layer that no Keras name resolves to (`<name>_depthwise`, `<name>_preact`).
    mutating func emitInternal(name: String, of layer: KerasLayerDescription, _ kind: LayerKind, _ inputs: [Int]) throws -> Int {
        try builder.append(name: name, kind: kind, inputs: inputs, source: LayerSource(file: descriptionFile, section: layer.className))
    }

    mutating func emitActivation(_ layer: KerasLayerDescription, _ choice: KerasActivationChoice, input: Int) throws {
        switch choice {
        case .plain(let a): try emit(layer, .activation(a), [input])
        case .softmax: try emit(layer, .softmax(.perPixelChannels), [input])
        }
    }

    /// A per-channel affine y = scale * x + shift (values rounded once to float32) under the layer's name.
    mutating func emitAffine(_ layer: KerasLayerDescription, scale: [Double], shift: [Double], input: Int) throws {
        let affine = ChannelAffine(
            scale: WeightTensor(shape: [scale.count], values: scale.map { Float($0) }),
            shift: WeightTensor(shape: [shift.count], values: shift.map { Float($0) }))
        try emit(layer, .channelAffine(affine), [input])
    }

    /// A constant as one value per channel: a number, or numbers (nested lists of any depth, as Python
    /// writes a (1, 1, C) array) that hold 1 or `channels` values; `what` names it in the error.
    func perChannel(_ value: KerasJSON, channels: Int, _ layer: KerasLayerDescription, what: String) throws -> [Double] {
        var numbers: [Double] = []
        var other = false
        func collect(_ value: KerasJSON) {
            if let n = value.double {
                numbers.append(n)
            } else if let list = value.array {
                list.forEach(collect)
            } else {
                other = true
            }
        }
        collect(value)
        guard !other, numbers.count == 1 || numbers.count == channels else {
            throw error(
                .unsupported, layer, "\(what) is not a number or one number per channel", expected: "1 or \(channels) numbers", found: "\(value)")
        }
        return numbers.count == 1 ? [Double](repeating: numbers[0], count: channels) : numbers
    }

    /// The shared tail of Conv2D, SeparableConv2D, DepthwiseConv2D and Dense: the layer with its own
    /// activation, or, for softmax, a linear `<name>_preact` followed by a softmax under the layer's name.
    /// (A following BatchNormalization stays its own layer; `BatchNormAttachment` decides whether it folds.)
    mutating func emitParameterLayer(
        _ layer: KerasLayerDescription, activation: KerasActivationChoice, input: Int,
        kind: (Activation) -> LayerKind
    ) throws {
        switch activation {
        case .plain(let a):
            try emit(layer, kind(a), [input])
        case .softmax:
            let pre = try emitInternal(name: "\(layer.name)_preact", of: layer, kind(.linear), [input])
            try emit(layer, .softmax(.perPixelChannels), [pre])
        }
    }

    /// A convolution with the layer's activation (see `emitParameterLayer`).
    mutating func emitConvolution(_ layer: KerasLayerDescription, _ conv: Convolution, activation: KerasActivationChoice, input: Int) throws {
        try emitParameterLayer(layer, activation: activation, input: input) { activation in
            var conv = conv
            conv.activation = activation
            return .convolution(conv)
        }
    }

    // MARK: - shapes and axes

    func isVector(_ shape: ActivationShape) -> Bool { shape.height == 1 && shape.width == 1 }

    /// Checks that `axis` (Keras axis numbering including the batch axis, negative from the end) is the
    /// channel axis of a tensor of `shape` (rank 1 for C x 1 x 1 vectors, else rank 3).
    func checkChannelAxis(_ layer: KerasLayerDescription, axisValue: KerasJSON?, default defaultAxis: Int, shape: ActivationShape, what: String)
        throws
    {
        var axis = defaultAxis
        if let value = axisValue, !value.isNull {
            if let a = value.int {
                axis = a
            } else if let list = value.array, list.count == 1, let a = list[0].int {
                axis = a
            } else {
                throw error(.unsupported, layer, "\(what) over several axes", found: "\(value)")
            }
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

    // MARK: - weights

    /// The layer's stored weight arrays, which must number `expected` (`roles` names them for the error) and
    /// be floating point, but for the positions in `integers`.
    mutating func weightArrays(
        _ layer: KerasLayerDescription, expected: Int, roles: String, integers: Set<Int> = []
    ) throws -> [KerasWeightArray] {
        let arrays = try store.arrays(for: layer)
        weightLayersUsed.insert(store.storageKey(for: layer))
        for (position, array) in arrays.enumerated() where array.isInteger && !integers.contains(position) {
            throw FoldKitError(
                .badInput, "HDF5 '\(array.path)': dataset is not floating point", file: store.file.displayName, layer: layer.label,
                expected: "float16/float32/float64", found: "an integer type")
        }
        guard arrays.count == expected else {
            throw FoldKitError(
                .badInput, "wrong number of weight arrays", file: store.file.displayName, layer: layer.label,
                expected: "\(expected) (\(roles))", found: "\(arrays.count) \(arrays.map { "\($0.name) \($0.shape)" })")
        }
        return arrays
    }

    func expectShape(_ layer: KerasLayerDescription, _ array: KerasWeightArray, _ shape: [Int]) throws {
        guard array.shape == shape else {
            throw FoldKitError(
                .badInput, "weight '\(array.name)' has the wrong shape", file: store.file.displayName, layer: layer.label,
                expected: "\(shape)", found: "\(array.shape)")
        }
    }

    func vector(_ layer: KerasLayerDescription, _ array: KerasWeightArray, _ count: Int) throws -> WeightTensor {
        try expectShape(layer, array, [count])
        return WeightTensor(shape: [count], values: array.values)
    }
}
