import FoldKitCore
import FoldKitDarknet
import FoldKitKeras
import Foundation

/// Picks the reader from the files given:
/// - Darknet: `model.cfg model.weights` (the weights may be left out for shape-only commands)
/// - Keras: `model.h5` / `model.hdf5`, `model.keras`, or `config.json weights.h5`
///
/// Every network read goes through `BatchNormAttachment` before it is returned, so which batch norms
/// fold is decided in one place for every format.
///
/// Files from outside: pass an `HDF5Helper` (`hdf5Helper:`), and a Keras model is read in a helper
/// process, so that libhdf5 never runs on it in this process (Docs/Library.md, "Reading files from
/// outside"). Without one, the Keras reader (libhdf5 1.10 on Debian 12, which a damaged file can crash
/// or overflow) runs in this process: for files you made or trust.
public enum ModelLoader {
    /// Reads the model in `paths` (reader picked from the file extensions, above) with batch norms attached
    /// to the layers they follow. `requireWeights: false` lets a Darknet cfg be read alone (shapes only).
    /// Throws `FoldKitError` naming the file, layer and offset of the first problem.
    public static func load(paths: [String], options: ModelOptions = .init(), requireWeights: Bool = true) throws -> Network {
        BatchNormAttachment.apply(to: try read(paths: paths, options: options, requireWeights: requireWeights))
    }

    /// `load(paths:options:requireWeights:)` with a Keras model read in `hdf5Helper`'s process (Darknet
    /// models, which have no HDF5, are read in this one); nil reads everything in this process. The
    /// network is the one the in-process read returns, value for value, and errors are the same errors.
    public static func load(
        paths: [String], options: ModelOptions = .init(), requireWeights: Bool = true, hdf5Helper: HDF5Helper?
    ) throws -> Network {
        guard let hdf5Helper, HDF5Helper.readsKeras(paths) else { return try load(paths: paths, options: options, requireWeights: requireWeights) }
        try requireFiles(paths)
        return try hdf5Helper.read(paths: paths, options: options, inputPath: nil).network
    }

    /// A `file not found` error for the first of `paths` that does not exist, as the readers give it.
    private static func requireFiles(_ paths: [String]) throws {
        for path in paths where !FileManager.default.fileExists(atPath: path) {
            throw FoldKitError(.io, "file not found", file: path)
        }
    }

    /// The network exactly as its reader built it.
    private static func read(paths: [String], options: ModelOptions, requireWeights: Bool) throws -> Network {
        guard !paths.isEmpty else { throw FoldKitError(.usage, "no model files given") }
        for path in paths where !FileManager.default.fileExists(atPath: path) {
            throw FoldKitError(.io, "file not found", file: path)
        }
        let extensions = paths.map { URL(fileURLWithPath: $0).pathExtension.lowercased() }
        if extensions.contains("cfg") {
            guard let cfgIndex = extensions.firstIndex(of: "cfg") else { throw FoldKitError(.usage, "no .cfg given") }
            let others = paths.indices.filter { $0 != cfgIndex }.map { paths[$0] }
            guard others.count <= 1 else {
                throw FoldKitError(.usage, "a Darknet model is one .cfg and one .weights file", found: paths.joined(separator: " "))
            }
            if requireWeights && others.isEmpty {
                throw FoldKitError(.usage, "this command needs the .weights file after the .cfg", file: paths[cfgIndex])
            }
            var convention = EpsilonConvention.darknet
            if let e = options.epsilon { convention.epsilon = e }
            if let p = options.epsilonPlacement { convention.placement = p }
            let readOptions = DarknetReadOptions(epsilon: convention, inputHeight: options.inputHeight, inputWidth: options.inputWidth)
            return try DarknetReader.read(cfgPath: paths[cfgIndex], weightsPath: others.first, options: readOptions)
        }
        let known: Set<String> = ["h5", "hdf5", "keras", "json"]
        guard extensions.allSatisfy(known.contains) else {
            throw FoldKitError(
                .usage, "cannot tell the model format from the file names",
                expected: ".cfg [.weights] (Darknet) or .h5/.hdf5/.keras/.json (Keras)", found: paths.joined(separator: " "))
        }
        // --height/--width only fill sizes a Keras model leaves undefined (None), e.g. MTCNN's P-Net.
        var keras = KerasReadOptions(inputHeight: options.inputHeight, inputWidth: options.inputWidth)
        keras.undefinedSizeAdvice = "give --height and --width, or an --input array of the size to run"
        if options.epsilon != nil || options.epsilonPlacement != nil {
            keras.epsilonOverride = EpsilonConvention(epsilon: options.epsilon ?? 1e-3, placement: options.epsilonPlacement ?? .insideSqrt)
        }
        return try KerasReader.read(paths: paths, options: keras)
    }

    /// The network and the input to run it on, read from a .npy (`--input`; float32, or float64 / float16
    /// converted to float32, see `InputArray.read`); the input's `file` holds the file's digest.
    ///
    /// Darknet: the array is (1, C, H, W) or (C, H, W) of the network's input (after --height/--width).
    /// Keras: the shape Keras takes, batch first - (1, features), (1, H, W, C), (1, C, H, W) for
    /// channels-first models - or the same without the batch axis; only batch 1. The array's shape is
    /// read first: sizes the model leaves undefined (`None`) are taken from it, then the model is read
    /// at that size.
    public static func load(paths: [String], options: ModelOptions = .init(), inputPath: String) throws -> (network: Network, input: ModelInput) {
        try load(paths: paths, options: options, inputPath: inputPath, hdf5Helper: nil)
    }

    /// `load(paths:options:inputPath:)` with a Keras model read in `hdf5Helper`'s process (which also
    /// matches the array's shape against the model's declared input); the array itself is read here.
    /// nil reads everything in this process.
    public static func load(
        paths: [String], options: ModelOptions = .init(), inputPath: String, hdf5Helper: HDF5Helper?
    ) throws -> (network: Network, input: ModelInput) {
        // The header first: the shape is checked against the model before the values are read.
        let array = try InputArray.header(path: inputPath)
        guard isKeras(paths) else {
            let network = try load(paths: paths, options: options)
            try ModelInput.checkShape(array, network: network)
            return (network, try ModelInput.npy(array.loaded(), network: network))
        }
        try requireFiles(paths)
        guard let hdf5Helper, HDF5Helper.readsKeras(paths) else {
            let (network, declaration) = try kerasNetwork(paths: paths, options: options, array: array)
            return (network, try kerasInput(array, network: network, declaration: declaration, options: options, paths: paths).input)
        }
        let loaded = try hdf5Helper.read(paths: paths, options: options, inputPath: inputPath)
        guard let declaration = loaded.inputDeclaration else {
            throw FoldKitError(
                .badInput, "the HDF5 helper process handed back a model that does not hold together: no input declaration",
                file: paths.joined(separator: ", "))
        }
        let (input, dims) = try kerasInput(array, network: loaded.network, declaration: declaration, options: options, paths: paths)
        // The helper sized the network from the same array: its input is the array's, axis for axis.
        let expected: ActivationShape? =
            switch dims.count {
            case 1: .vector(dims[0])
            case 3:
                declaration.channelsFirst
                    ? ActivationShape(channels: dims[0], height: dims[1], width: dims[2])
                    : ActivationShape(channels: dims[2], height: dims[0], width: dims[1])
            default: nil
            }
        guard expected == loaded.network.inputShape else {
            throw FoldKitError(
                .badInput,
                "the HDF5 helper process handed back a model that does not hold together: input \(loaded.network.inputShape) for an array of \(array.shapeText)",
                file: paths.joined(separator: ", "))
        }
        return (loaded.network, input)
    }

    /// The Keras network sized by `array`'s shape (its header read) and the declared input the array
    /// matched: the part of `load(paths:options:inputPath:)` that reads the model files (the helper's).
    package static func kerasNetwork(paths: [String], options: ModelOptions, array: InputArray) throws -> (Network, KerasInputDeclaration) {
        let declaration = try KerasReader.inputDeclaration(paths: paths)
        let dims = try KerasInputMatch.dims(
            of: array, declaration: declaration, height: options.inputHeight, width: options.inputWidth,
            modelFile: paths.joined(separator: ", "))
        var sized = options
        if let h = declaration.heightAxis, let w = declaration.widthAxis {
            sized.inputHeight = dims[h]
            sized.inputWidth = dims[w]
        }
        let network = try load(paths: paths, options: sized)
        try checkInputCount(array, network: network)
        return (network, declaration)
    }

    /// The array's values for `network` (read by `kerasNetwork` from the same array), channel-major, and
    /// the array's sizes in the model's axis order.
    private static func kerasInput(
        _ array: InputArray, network: Network, declaration: KerasInputDeclaration, options: ModelOptions, paths: [String]
    ) throws -> (input: ModelInput, dims: [Int]) {
        let dims = try KerasInputMatch.dims(
            of: array, declaration: declaration, height: options.inputHeight, width: options.inputWidth,
            modelFile: paths.joined(separator: ", "))
        try checkInputCount(array, network: network)
        let loaded = try array.loaded()
        let values = KerasInputMatch.channelMajor(loaded.values, dims: dims, declaration: declaration)
        return (ModelInput(values: values, origin: array.path, file: loaded.digest), dims)
    }

    private static func checkInputCount(_ array: InputArray, network: Network) throws {
        guard SizeLimits.elementCount(array.shape) == network.inputShape.count else {
            throw FoldKitError(
                .usage, "input size does not match the network", file: array.path,
                expected: "\(network.inputShape.count) values", found: "\(array.shapeText)")
        }
    }

    /// True for Keras file names (no Darknet .cfg among them).
    static func isKeras(_ paths: [String]) -> Bool {
        !paths.contains { URL(fileURLWithPath: $0).pathExtension.lowercased() == "cfg" }
    }
}
