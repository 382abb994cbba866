import FoldKitCore

/// Turns a parsed Keras model description plus its stored weights into FoldKit layers: the graph
/// wiring (dependency order, Keras name -> FoldKit layer, outputs) and the dispatch of each Keras class
/// to its family (`KerasConvolutionLayers`, `KerasDenseLayers`, `KerasNormalizationLayers`,
/// `KerasPoolingLayers`, `KerasActivationLayers`, `KerasMergeLayers`, `KerasShapeLayers`).
///
/// Activations inside FoldKit are channel-major (C x H x W). Channels-last Keras models keep that
/// convention at the edges only: Flatten and Reshape become `.reshape` with `.channelsLast` order,
/// kernels are transposed to OIHW, and the input (H, W, C) is recorded as C x H x W. Every Keras
/// layer becomes its own FoldKit layer (SeparableConv2D two, a softmax-activated layer two);
/// BatchNormalization included: which batch norms fold is decided after reading, by FoldKit's
/// `BatchNormAttachment` pass.
struct KerasGraphTranslator {
    let model: KerasModelDescription
    private(set) var context: KerasTranslationContext

    init(
        model: KerasModelDescription, store: KerasWeightStore, descriptionFile: String, inputShape: ActivationShape,
        channelsFirst: Bool, flipKernels: Bool, kerasMajor: Int
    ) {
        self.model = model
        self.context = KerasTranslationContext(
            descriptionFile: descriptionFile, store: store, inputName: model.inputName, inputShape: inputShape,
            channelsFirst: channelsFirst, flipKernels: flipKernels, kerasMajor: kerasMajor)
    }

    var layers: [Layer] { context.builder.layers }
    var weightLayersUsed: Set<String> { context.weightLayersUsed }
    var firstEpsilon: Double? { context.firstEpsilon }

    /// Translates every layer (each once all its inputs are translated, in model order otherwise)
    /// and returns the output layer indices.
    mutating func translate() throws -> [Int] {
        var pending = model.layers
        while !pending.isEmpty {
            var next: [KerasLayerDescription] = []
            for layer in pending {
                if layer.inboundLayers.allSatisfy({ context.produced[$0] != nil }) {
                    try translate(layer)
                } else {
                    next.append(layer)
                }
            }
            if next.count == pending.count {
                let missing = Set(next.flatMap { $0.inboundLayers }).filter { context.produced[$0] == nil }.sorted()
                throw FoldKitError(
                    .badInput, "layers read from unknown or cyclic inputs: \(missing)", file: context.descriptionFile,
                    layer: next.first?.label)
            }
            pending = next
        }
        return try model.outputNames.map { name in
            guard let index = context.produced[name] else {
                throw FoldKitError(.badInput, "model output '\(name)' is not a layer of the model", file: context.descriptionFile)
            }
            guard index != Network.inputIndex else {
                throw FoldKitError(.unsupported, "model output '\(name)' is the input itself", file: context.descriptionFile)
            }
            return index
        }
    }

    private mutating func translate(_ layer: KerasLayerDescription) throws {
        let inputs = layer.inboundLayers.compactMap { context.produced[$0] }
        func single() throws -> Int {
            guard inputs.count == 1, let first = inputs.first else {
                throw context.error(.badInput, layer, "layer takes one input", expected: "1", found: "\(inputs.count)")
            }
            return first
        }
        switch KerasOperation.recognise(layer) {
        case .operation(let operation): return try KerasOperatorLayers.translate(operation, layer, inputs: inputs, &context)
        case .unsupported(let what): throw context.error(.unsupported, layer, "\(what) is not supported")
        case .notAnOperation: break
        }
        guard let known = KerasLayerClass(rawValue: layer.className) else {
            guard KerasApplicationLayers.isKerasOwn(className: layer.className, module: layer.module) else {
                let module = layer.module.map { " from module '\($0)'" } ?? ""
                throw context.error(.unsupported, layer, "layer class '\(layer.className)'\(module) is not supported (custom or unknown layer)")
            }
            return try KerasApplicationLayers.translate(layer, inputs: inputs, &context)
        }
        switch known {
        case .inputLayer:
            throw context.error(.unsupported, layer, "only models with exactly one input are supported")
        case .dropout, .spatialDropout1D, .spatialDropout2D, .gaussianNoise, .gaussianDropout, .alphaDropout, .activityRegularization,
            .randomFlip, .randomRotation, .randomZoom, .randomContrast, .randomTranslation, .randomBrightness:
            try KerasShapeLayers.inferenceIdentity(layer, input: single(), &context)
        case .activation: try KerasActivationLayers.activation(layer, input: single(), &context)
        case .relu: try KerasActivationLayers.relu(layer, input: single(), &context)
        case .leakyRelu: try KerasActivationLayers.leakyRelu(layer, input: single(), &context)
        case .elu: try KerasActivationLayers.elu(layer, input: single(), &context)
        case .thresholdedRelu: try KerasActivationLayers.thresholdedRelu(layer, input: single(), &context)
        case .prelu: try KerasActivationLayers.prelu(layer, input: single(), &context)
        case .softmax: try KerasActivationLayers.softmax(layer, input: single(), &context)
        case .conv2D, .convolution2D: try KerasConvolutionLayers.conv2D(layer, input: single(), &context)
        case .depthwiseConv2D: try KerasConvolutionLayers.depthwise(layer, input: single(), &context)
        case .separableConv2D, .separableConvolution2D: try KerasConvolutionLayers.separable(layer, input: single(), &context)
        case .batchNormalization: try KerasNormalizationLayers.batchNormalization(layer, input: single(), &context)
        case .rescaling: try KerasPreprocessingLayers.rescaling(layer, input: single(), &context)
        case .normalization: try KerasPreprocessingLayers.normalization(layer, input: single(), &context)
        case .dense: try KerasDenseLayers.dense(layer, input: single(), &context)
        case .maxPooling2D, .maxPool2D, .averagePooling2D, .avgPool2D: try KerasPoolingLayers.pooling(layer, input: single(), &context)
        case .globalAveragePooling2D, .globalAvgPool2D: try KerasPoolingLayers.globalAverage(layer, input: single(), &context)
        case .globalMaxPooling2D, .globalMaxPool2D: try KerasPoolingLayers.globalMax(layer, input: single(), &context)
        case .zeroPadding2D: try KerasShapeLayers.zeroPadding(layer, input: single(), &context)
        case .cropping2D: try KerasShapeLayers.cropping(layer, input: single(), &context)
        case .upSampling2D: try KerasShapeLayers.upsampling(layer, input: single(), &context)
        case .flatten: try KerasShapeLayers.flatten(layer, input: single(), &context)
        case .reshape: try KerasShapeLayers.reshape(layer, input: single(), &context)
        case .lambda: try KerasShapeLayers.lambda(layer, input: single(), &context)
        case .concatenate: try KerasMergeLayers.concatenate(layer, inputs: inputs, axisValue: layer.config["axis"], &context)
        case .add: try KerasMergeLayers.add(layer, inputs: inputs, &context)
        case .multiply: try KerasMergeLayers.multiply(layer, inputs: inputs, &context)
        case .merge: try KerasMergeLayers.keras1Merge(layer, inputs: inputs, &context)
        case .subtract: try KerasMergeLayers.merge(layer, .subtract, inputs: inputs, &context)
        case .average: try KerasMergeLayers.merge(layer, .average, inputs: inputs, &context)
        case .maximum: try KerasMergeLayers.merge(layer, .maximum, inputs: inputs, &context)
        case .minimum: try KerasMergeLayers.merge(layer, .minimum, inputs: inputs, &context)
        case .layerNormalization: try KerasNormalizationLayers.layerNormalization(layer, input: single(), &context)
        case .groupNormalization: try KerasNormalizationLayers.groupNormalization(layer, input: single(), &context)
        case .conv2DTranspose, .convolution2DTranspose: try KerasConvolutionLayers.transposed(layer, input: single(), &context)
        }
    }
}
