import FoldKitCore
import Foundation

/// The input tensor a command runs the network on: seeded, or read from a .npy file.
public struct ModelInput: Sendable {
    /// Channel-major C*H*W values for the network's input shape.
    public var values: [Float]
    /// How it was made, for reports and manifests: `seed 0` or the file path.
    public var origin: String
    /// The .npy file it was read from (size, SHA-256 and any conversion to float32); nil for a seeded
    /// input or one made in memory.
    public var file: FileDigest?

    /// An input of channel-major `values`, described as `origin` in reports, read from `file` if given.
    public init(values: [Float], origin: String, file: FileDigest? = nil) {
        self.values = values
        self.origin = origin
        self.file = file
    }

    /// Uniform values in [0, 1) from `SplitMix64(seed)`, one per element in channel-major order.
    public static func seeded(_ seed: UInt64, shape: ActivationShape) -> ModelInput {
        var rng = SplitMix64(seed: seed)
        return ModelInput(values: (0..<shape.count).map { _ in Float(rng.nextUnit()) }, origin: "seed \(seed)")
    }

    /// A float32 .npy for a network already read: Darknet (1,C,H,W) or (C,H,W); Keras channels-last
    /// (1,H,W,C) or (H,W,C), channels-first (1,C,H,W) or (C,H,W), vector inputs (1,N) or (N).
    /// Any other shape or dtype is an error naming the file, expected and found. To take a Keras
    /// model's undefined sizes from the array, use `ModelLoader.load(paths:options:inputPath:)`.
    public static func npy(path: String, network: Network) throws -> ModelInput {
        let array = try InputArray.header(path: path)
        try checkShape(array, network: network)
        return try npy(array.loaded(), network: network)
    }

    /// `npy(path:network:)` for an array already read.
    public static func npy(_ array: InputArray, network: Network) throws -> ModelInput {
        let isVector = try checkShape(array, network: network)
        let s = network.inputShape
        let values = network.inputOrder == .channelsLast && !isVector ? TensorLayout.hwcToCHW(array.values, shape: s) : array.values
        return ModelInput(values: values, origin: array.path, file: array.digest)
    }

    /// Checks `array`'s shape (its values need not be read yet) against the network's input, as
    /// `npy(_:network:)` takes it; returns whether the input is a vector.
    @discardableResult
    public static func checkShape(_ array: InputArray, network: Network) throws -> Bool {
        let s = network.inputShape
        let isVector = network.vectorsAreRank2 && s.height == 1 && s.width == 1 && array.shape.last == s.channels && array.shape.count <= 2
        let dims: [Int]
        switch network.inputOrder {
        case _ where isVector: dims = [s.channels]
        case .channelsFirst: dims = [s.channels, s.height, s.width]
        case .channelsLast: dims = [s.height, s.width, s.channels]
        }
        let body = array.shape.count == dims.count + 1 && array.shape.first == 1 ? Array(array.shape.dropFirst()) : array.shape
        guard body == dims else {
            let text = dims.map(String.init)
            let batch = array.shape.count == dims.count + 1 && array.shape.first != 1 ? " (only batch 1 is supported)" : ""
            throw FoldKitError(
                .usage, "input shape does not match the network" + batch, file: array.path,
                expected: ShapeText.tuple(["1"] + text) + " or " + ShapeText.tuple(text), found: array.shapeText)
        }
        return isVector
    }
}
