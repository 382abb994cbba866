import FoldKitCore
import Foundation

/// Reads Keras models (Keras 1.x, Keras 2.x / tf.keras, Keras 3) into a FoldKit `Network`.
///
/// File kinds:
/// - `[model.h5]` (or .hdf5): a full model saved with `model.save`: root attribute `model_config`
///   (JSON), weights under `model_weights/<layer>/...` in each layer's `weight_names` order.
/// - `[config.json, weights.h5]` (either order): `model.to_json()` plus `model.save_weights()`
///   (weights at the file root, or under `model_weights`).
/// - `[model.keras]`: a Keras 3 zip archive (`config.json` + `model.weights.h5`).
///
/// The network is channel-major inside; `Network.inputOrder` is `.channelsLast` for channels-last
/// models (the user's input is H x W x C) and `.channelsFirst` for Keras 1 'th' / channels_first models.
public enum KerasReader {
    /// Epsilon convention recorded on the network when no batch norm sets one: Keras' default 1e-3 inside the sqrt.
    public static let defaultEpsilon = EpsilonConvention(epsilon: 1e-3, placement: .insideSqrt)

    /// Reads a Keras model: `model.h5` / `model.hdf5`, `model.keras`, or `config.json weights.h5`. Throws
    /// `FoldKitError` naming the file and layer of the first problem (unsupported layers are refused by name).
    public static func read(paths: [String], options: KerasReadOptions = .init()) throws -> Network {
        try withSource(paths: paths) { source in
            var network = try build(
                source.description, store: source.store, descriptionFile: source.descriptionFile, sourceFiles: source.sourceFiles,
                kerasVersion: source.version, backend: source.backend, fileKind: source.fileKind, options: options)
            network.metadata.weightsEntry = source.weightsEntry
            return network
        }
    }

    /// The model's input as declared (sizes, `None` where undefined, axis order), read from the
    /// description alone: callers can fill undefined sizes (`KerasReadOptions.inputHeight/inputWidth`)
    /// from an input array before reading the whole model.
    package static func inputDeclaration(paths: [String]) throws -> KerasInputDeclaration {
        try withSource(paths: paths) { source in
            KerasInputDeclaration(
                dims: source.description.inputShape,
                channelsFirst: try isChannelsFirst(source.description, file: source.descriptionFile))
        }
    }

    /// What a file combination holds: the description, where its weights are and what wrote it.
    private struct Source {
        var description: KerasModelDescription
        var store: KerasWeightStore
        var descriptionFile: String
        var sourceFiles: [String]
        var version: String?
        var backend: String?
        var fileKind: String
        var weightsEntry: String?
    }

    /// Opens `paths` as one of the file kinds above and runs `body` while the files are open.
    private static func withSource<T>(paths: [String], _ body: (Source) throws -> T) throws -> T {
        let lower = paths.map { ($0 as NSString).pathExtension.lowercased() }
        if paths.count == 1, lower[0] == "keras" {
            let archive = try KerasArchive(path: paths[0])
            defer { archive.cleanUp() }
            let json = try KerasJSON.parse(archive.config, file: paths[0])
            try KerasLayerSupport.refuseUnsupported(json, file: paths[0])
            let description = try KerasModelDescription.parse(json, file: paths[0])
            let file = try HDF5File(path: try archive.extractWeights(), displayName: "\(paths[0]) [model.weights.h5]")
            let store = try KerasWeightStore(file: file, layout: .keras3, layers: description.layers)
            let version = archive.metadata?["keras_version"]?.string ?? description.kerasVersion ?? "3"
            return try body(
                Source(
                    description: description, store: store, descriptionFile: paths[0], sourceFiles: paths, version: version,
                    backend: description.backend, fileKind: "keras archive", weightsEntry: "model.weights.h5"))
        }
        if paths.count == 1 {
            let file = try HDF5File(path: paths[0])
            guard file.hasAttribute("model_config") else {
                throw FoldKitError(
                    .usage, "HDF5 file has no model_config attribute (a weights-only file): pass the model's JSON description too",
                    file: paths[0], expected: "[model.h5] or [config.json, weights.h5]")
            }
            let json = try KerasJSON.parse(try file.stringAttribute("model_config"), file: paths[0])
            try KerasLayerSupport.refuseUnsupported(json, file: paths[0])
            let description = try KerasModelDescription.parse(json, file: paths[0])
            let root = file.exists("model_weights") ? "model_weights" : ""
            let store = try KerasWeightStore(file: file, layout: .legacy(root: root), layers: description.layers)
            let (version, backend) = try versionAndBackend(file, root: root, description: description)
            return try body(
                Source(
                    description: description, store: store, descriptionFile: paths[0], sourceFiles: paths, version: version,
                    backend: backend, fileKind: "full model HDF5"))
        }
        if paths.count == 2, let jsonIndex = lower.firstIndex(of: "json") {
            let jsonPath = paths[jsonIndex]
            let weightsPath = paths[1 - jsonIndex]
            let text: String
            do { text = try String(contentsOfFile: jsonPath, encoding: .utf8) } catch {
                throw FoldKitError(.io, "cannot read the model description: \(error)", file: jsonPath)
            }
            let json = try KerasJSON.parse(text, file: jsonPath)
            try KerasLayerSupport.refuseUnsupported(json, file: jsonPath)
            let description = try KerasModelDescription.parse(json, file: jsonPath)
            let file = try HDF5File(path: weightsPath)
            let root = file.exists("model_weights") ? "model_weights" : ""
            // `save_weights("x.weights.h5")` (Keras 3, recent tf.keras) writes the archive layout: layers/<path>/vars/<i>.
            let archiveLayout = root.isEmpty && !KerasWeightStore.hasLayerNames(file) && file.isGroup("layers")
            let store = try KerasWeightStore(file: file, layout: archiveLayout ? .keras3 : .legacy(root: root), layers: description.layers)
            let (version, backend) = try versionAndBackend(file, root: root, description: description)
            return try body(
                Source(
                    description: description, store: store, descriptionFile: jsonPath, sourceFiles: [jsonPath, weightsPath],
                    version: version, backend: backend, fileKind: "JSON + weights HDF5"))
        }
        throw FoldKitError(
            .usage, "unrecognised Keras file combination", file: paths.joined(separator: ", "),
            expected: "[model.h5|.hdf5], [config.json, weights.h5] or [model.keras]", found: "\(paths.count) paths")
    }

    /// The backends Keras has written into a file's `backend` attribute (Keras 1 to 3, keras-mxnet).
    static let knownBackends: Set<String> = ["tensorflow", "theano", "cntk", "mxnet", "jax", "torch", "numpy", "openvino"]

    /// keras_version and backend from the file root, the weights group, or the JSON description. An
    /// attribute that is there but cannot be read is an error (a damaged string, not a missing one), and so
    /// is one that reads as something Keras never writes: the backend decides whether kernels are flipped
    /// (Theano), and a damaged global heap ID can make libhdf5 1.10 read another string of the file instead
    /// (the version number as the backend).
    private static func versionAndBackend(_ file: HDF5File, root: String, description: KerasModelDescription) throws -> (String?, String?) {
        func attribute(_ name: String, valid: (String) -> Bool, expected: String) throws -> String? {
            for at in ["/", root] where !at.isEmpty && (at == "/" || file.exists(at)) {
                guard file.hasAttribute(name, at: at) else { continue }
                let value = try file.stringAttribute(name, at: at)
                guard valid(value) else {
                    throw FoldKitError(
                        .badInput, "attribute '\(name)' holds what Keras never writes there: the attribute is damaged", file: file.displayName,
                        expected: expected, found: "'\(value.prefix(40))'")
                }
                return value
            }
            return nil
        }
        let version = try attribute(
            "keras_version",
            valid: { $0.first?.isNumber == true && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || ".+-_".contains($0)) } },
            expected: "a version such as 2.15.0")
        let backend = try attribute("backend", valid: knownBackends.contains, expected: knownBackends.sorted().joined(separator: ", "))
        return (version ?? description.kerasVersion, backend ?? description.backend)
    }

    private static func build(
        _ description: KerasModelDescription, store: KerasWeightStore, descriptionFile: String, sourceFiles: [String],
        kerasVersion: String?, backend: String?, fileKind: String, options: KerasReadOptions
    ) throws -> Network {
        // Keras 1 writes no keras_version in weights-only files; a 'dim_ordering' key only exists in Keras 1 configs.
        let usesDimOrdering = description.layers.contains { $0.config["dim_ordering"] != nil }
        let major = kerasVersion.flatMap { Int($0.split(separator: ".").first ?? "") } ?? (usesDimOrdering ? 1 : 2)
        let channelsFirst = try isChannelsFirst(description, file: descriptionFile)
        // Theano performs true convolution; Keras converts such kernels (rotates them by 180 degrees)
        // when loading Theano weights into TensorFlow (keras/engine/saving.py _need_convert_kernel).
        // Keras 1 'th' files may carry no backend attribute: 'th' ordering is then taken as Theano (as DL4J does).
        let flip = backend == "theano" || (backend == nil && major == 1 && channelsFirst)

        let inputShape = try resolveInputShape(description.inputShape, channelsFirst: channelsFirst, file: descriptionFile, options: options)
        try SizeLimits.checkActivation(inputShape, file: descriptionFile, line: nil, layer: "input '\(description.inputName)'")
        var translator = KerasGraphTranslator(
            model: description, store: store, descriptionFile: descriptionFile, inputShape: inputShape,
            channelsFirst: channelsFirst, flipKernels: flip, kerasMajor: major)
        let outputs = try translator.translate()
        let unused = Set(try store.layersWithWeights()).subtracting(translator.weightLayersUsed)
        if !unused.isEmpty {
            throw FoldKitError(
                .badInput, "the weights file holds weights for layers the model description does not use", file: store.file.displayName,
                found: unused.sorted().joined(separator: ", "))
        }
        var metadata = NetworkMetadata()
        metadata.kerasVersion = kerasVersion ?? "unknown"
        metadata.backend = backend ?? "unknown"
        metadata.modelClass = description.className
        metadata.fileKind = fileKind
        metadata.dataFormat = channelsFirst ? "channels_first" : "channels_last"
        metadata.theanoKernelsRotated = flip
        let convention = translator.firstEpsilon.map { EpsilonConvention(epsilon: $0, placement: .insideSqrt) } ?? defaultEpsilon
        let network = Network(
            format: .keras, sourceFiles: sourceFiles, inputShape: inputShape,
            inputOrder: channelsFirst ? .channelsFirst : .channelsLast, layers: translator.layers,
            outputs: outputs, epsilonConvention: convention, metadata: metadata,
            layerIdentity: .name, vectorsAreRank2: true)
        if let override = options.epsilonOverride { return network.withEpsilonConvention(override) }
        return network
    }

    /// Whether the model's layers are channels-first (`data_format` channels_first, Keras 1 `dim_ordering` th).
    private static func isChannelsFirst(_ description: KerasModelDescription, file: String) throws -> Bool {
        let formats = Set(
            description.layers.compactMap { layer -> Bool? in
                if let f = layer.config["data_format"]?.string { return f == "channels_first" }
                if let d = layer.config["dim_ordering"]?.string, d != "default" { return d == "th" }
                return nil
            })
        if formats.count > 1 {
            throw FoldKitError(.unsupported, "model mixes channels-first and channels-last layers", file: file)
        }
        return formats.first ?? false
    }

    /// (H, W, C) or, for channels-first models, (C, H, W) -> C x H x W; (n) -> n x 1 x 1. Undefined
    /// (`None`) height and width come from `options.inputHeight/inputWidth`.
    private static func resolveInputShape(_ dims: [Int?], channelsFirst: Bool, file: String, options: KerasReadOptions) throws -> ActivationShape {
        let declaration = KerasInputDeclaration(dims: dims, channelsFirst: channelsFirst)
        let declared = KerasInputDeclaration.text(dims)
        switch dims.count {
        case 1:
            guard let n = dims[0] else { throw FoldKitError(.badInput, "model input size is undefined", file: file, found: declared) }
            return .vector(n)
        case 3:
            let filled = declaration.filled(height: options.inputHeight, width: options.inputWidth)
            let (h, w, c) = channelsFirst ? (filled[1], filled[2], filled[0]) : (filled[0], filled[1], filled[2])
            guard let c else { throw FoldKitError(.badInput, "model input channel count is undefined", file: file, found: declared) }
            guard let height = h, let width = w else {
                throw FoldKitError(
                    .usage, "model input height/width is undefined (None): " + options.undefinedSizeAdvice,
                    file: file, expected: declaration.takenShapesText(filled), found: declared)
            }
            guard height > 0, width > 0 else {
                throw FoldKitError(.usage, "input height and width must be positive", file: file, found: "\(height) x \(width)")
            }
            return ActivationShape(channels: c, height: height, width: width)
        default:
            throw FoldKitError(
                .unsupported,
                "model input of rank \(dims.count + 1) (batch included) is not supported: FoldKit reads Keras models with vector or image inputs",
                file: file, expected: "(None, features), (None, H, W, C) or (None, C, H, W)", found: declared)
        }
    }
}
