import ArgumentParser
import FoldKit

/// The input the network runs on.
struct InputArguments: ParsableArguments {
    @Option(
        help:
            ".npy input, float32 (float64 and float16 are converted to float32), or an onnx test data set's input_0.pb ([1,C,H,W] or [1,H,W,C]). Darknet: (1,C,H,W) or (C,H,W). Keras: the shape Keras takes, batch 1 first - (1,features), (1,H,W,C), (1,C,H,W) for channels-first (th) models - or the same without the batch axis; sizes the model leaves undefined (None) come from the array."
    )
    var input: String?

    @Option(help: "Seed for the synthetic input (uniform [0,1) from SplitMix64), used when --input is not given.")
    var seed: UInt64 = 0

    /// Reads the model and its input: the --input array (whose shape is read first, so it can fill
    /// sizes a Keras model leaves undefined) or the seeded input at the model's size.
    /// The network and its input. `check` sees the network before a seeded input is made (an --input
    /// array is read with the network, shape-checked from its header first).
    func load(_ model: ModelArguments, check: (Network) throws -> Void = { _ in }) throws -> (network: Network, input: ModelInput) {
        if let input, input.hasSuffix(".pb") {
            // An onnx test data set's input (`foldkit export`): NCHW or NHWC, read once the network is known.
            let network = try model.load()
            try check(network)
            return (network, try ModelInput.onnxTensor(path: input, network: network))
        }
        if let input {
            let loaded = try ModelLoader.load(paths: model.files, options: model.options, inputPath: input, hdf5Helper: IsolatedModelRead.helper)
            try check(loaded.network)
            return loaded
        }
        let network = try model.load()
        try check(network)
        return (network, ModelInput.seeded(seed, shape: network.inputShape))
    }
}
