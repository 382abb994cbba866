import ArgumentParser
import FoldKit
import FoldKitBlobFormat

/// The model files and reading options every command shares.
struct ModelArguments: ParsableArguments {
    @Argument(help: "Darknet: model.cfg model.weights. Keras: model.h5 | model.keras | config.json weights.h5.")
    var files: [String]

    @Option(name: .customLong("bn-epsilon"), help: "Batch-norm epsilon for every layer (Darknet default 1e-5; Keras: each layer's own).")
    var bnEpsilon: Double?

    @Option(name: .customLong("bn-epsilon-mode"), help: "Where epsilon goes: inside = sqrt(var + eps), outside = sqrt(var) + eps.")
    var bnEpsilonMode: EpsilonPlacement?

    @Option(
        help:
            "Input height: run a fully convolutional Darknet network at another size, or set a Keras input height the model leaves undefined (None); an --input array gives it too."
    )
    var height: Int?

    @Option(help: "Input width (see --height).")
    var width: Int?

    func validate() throws {
        try OptionRange.check("--bn-epsilon", bnEpsilon, .nonNegative)
        try OptionRange.check("--height", height, atLeast: 1)
        try OptionRange.check("--width", width, atLeast: 1)
    }

    var options: ModelOptions {
        ModelOptions(epsilon: bnEpsilon, epsilonPlacement: bnEpsilonMode, inputHeight: height, inputWidth: width)
    }

    /// The network; a Keras model is read in the helper process (`IsolatedModelRead`).
    func load(requireWeights: Bool = true) throws -> Network {
        try ModelLoader.load(paths: files, options: options, requireWeights: requireWeights, hdf5Helper: IsolatedModelRead.helper)
    }
}

extension EpsilonPlacement: ExpressibleByArgument {}
extension FixtureLayout: ExpressibleByArgument {}
extension WeightLayout: ExpressibleByArgument {
    public init?(argument: String) { self.init(caseInsensitive: argument) }
    public static var allValueStrings: [String] { allCases.map { $0.rawValue.lowercased() } }
}
extension BlobDType: ExpressibleByArgument {}
