import ArgumentParser
import FoldKit

/// The model files and reading options every command shares.
struct ModelArguments: ParsableArguments {
    @Argument(help: "Darknet: model.cfg model.weights. Keras: model.h5 | model.keras | config.json weights.h5.")
    var files: [String]

    @Option(name: .customLong("bn-epsilon"), help: "Batch-norm epsilon for every layer (Darknet default 1e-5; Keras: each layer's own).")
    var bnEpsilon: Double?

    @Option(name: .customLong("bn-epsilon-mode"), help: "Where epsilon goes: inside = sqrt(var + eps), outside = sqrt(var) + eps.")
    var bnEpsilonMode: EpsilonPlacement?

    @Option(help: "Input height: run a fully convolutional Darknet network at another size, or set a Keras input height the model leaves undefined (None); an --input array gives it too.")
    var height: Int?

    @Option(help: "Input width (see --height).")
    var width: Int?

    var options: ModelOptions {
        ModelOptions(epsilon: bnEpsilon, epsilonPlacement: bnEpsilonMode, inputHeight: height, inputWidth: width)
    }

    func load(requireWeights: Bool = true) throws -> Network {
        try ModelLoader.load(paths: files, options: options, requireWeights: requireWeights)
    }
}

/// The input the network runs on.
struct InputArguments: ParsableArguments {
    @Option(help: "Float32 .npy input. Darknet: (1,C,H,W) or (C,H,W). Keras: the shape Keras takes, batch 1 first - (1,features), (1,H,W,C), (1,C,H,W) for channels-first (th) models - or the same without the batch axis; sizes the model leaves undefined (None) come from the array.")
    var input: String?

    @Option(help: "Seed for the synthetic input (uniform [0,1) from SplitMix64), used when --input is not given.")
    var seed: UInt64 = 0

    /// Reads the model and its input: the --input array (whose shape is read first, so it can fill
    /// sizes a Keras model leaves undefined) or the seeded input at the model's size.
    func load(_ model: ModelArguments) throws -> (network: Network, input: ModelInput) {
        if let input { return try ModelLoader.load(paths: model.files, options: model.options, inputPath: input) }
        let network = try model.load()
        return (network, ModelInput.seeded(seed, shape: network.inputShape))
    }
}

extension EpsilonPlacement: ExpressibleByArgument {}
extension FixtureLayout: ExpressibleByArgument {}
extension WeightLayout: ExpressibleByArgument {
    public init?(argument: String) { self.init(rawValue: argument.uppercased()) }
    public static var allValueStrings: [String] { allCases.map { $0.rawValue.lowercased() } }
}
