import FoldKitCore
import Foundation

/// A network output as fixture packs, exported onnx models and engine verdicts name it, so an engine's
/// output file can be matched to FoldKit's reference by name (Docs/Export.md, "What the model holds").
///
/// Name: the fixture file stem of the layer (`layer_030`, Keras `layer_012_<name>`); for a layer whose darknet
/// buffer differs from FoldKit's output (detection heads, [cost]: `DarknetLayerOutput.differs`) the raw
/// tensor the head reads, `layer_030_raw`, which is what the exported model outputs. Shape: `[1, C, H, W]`,
/// or `[1, C]` for the rank-2 vector layers of a Keras model (`FixtureWriter.vectorLayers`).
public struct NetworkOutputTensor: Sendable, Equatable, Codable {
    /// The output's name.
    public var name: String
    /// The layer (index into `Network.layers`) whose output this is.
    public var layer: Int
    /// The layer's name (the Darknet index as a string, or the Keras layer name).
    public var layerName: String
    /// Dimensions, batch first.
    public var shape: [Int]
    /// Whether this is a detection head's raw input (decoded with the head's parameters) rather than a
    /// layer's final output.
    public var rawHead: Bool

    /// The outputs of `network` (`Network.outputIndices`), in that order.
    public static func outputs(of network: Network) -> [NetworkOutputTensor] {
        let vectors = FixtureWriter.vectorLayers(network)
        return network.outputIndices.map { index in
            let layer = network.layers[index]
            let entry = FixtureWriter.describe(network: network, position: index + 1)
            let stem = String(entry.fileName.dropLast(4))
            let shape = FixtureWriter.arrange([], position: index + 1, shape: entry.shape, layout: .nchw, vectors: vectors).shape
            let raw = DarknetLayerOutput.differs(layer)
            return NetworkOutputTensor(name: raw ? stem + "_raw" : stem, layer: index, layerName: layer.name, shape: shape, rawHead: raw)
        }
    }
}
