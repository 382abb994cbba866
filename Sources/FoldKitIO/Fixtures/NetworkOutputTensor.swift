import FoldKitCore
import Foundation

/// A network output as fixture packs, exported onnx models and engine verdicts name it, so an engine's
/// output file can be matched to FoldKit's reference by name (Docs/Export.md, "What the model holds").
///
/// Name: the fixture file stem of the layer (`layer_030`, Keras `layer_012_<name>`); for a layer whose darknet
/// buffer differs from FoldKit's output (detection heads, [cost]: `DarknetLayerOutput.differs`) the raw
/// tensor the head reads, `layer_030_raw`, which is what the exported model outputs; with decoded heads
/// (`export --decode-heads`) darknet's own buffer for the layer instead, `layer_030` as the fixture pack's
/// head file (`DarknetLayerOutput`). Shape: `[1, C, H, W]`, or `[1, C]` for the rank-2 vector layers of a
/// Keras model (`FixtureWriter.vectorLayers`); a decoded [region] head `[1, H, W, C]` (darknet's
/// location-first buffer).
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
    /// Whether this holds darknet's buffer for a layer where it differs from FoldKit's output (a decoded
    /// detection head, [cost]: `DarknetLayerOutput`), in `order`.
    public var darknetBuffer: Bool = false
    /// The order of a darknet buffer's values (channel-major unless a [region] head's location-first).
    public var order: DarknetLayerOutput.Order = .channelMajor

    /// The outputs of `network` (`Network.outputIndices`), in that order; with `decodedHeads`, darknet's own
    /// buffer where it differs from FoldKit's output, in place of the raw head.
    public static func outputs(of network: Network, decodedHeads: Bool = false) -> [NetworkOutputTensor] {
        let vectors = FixtureWriter.vectorLayers(network)
        return network.outputIndices.map { index in
            let layer = network.layers[index]
            let entry = FixtureWriter.describe(network: network, position: index + 1)
            let stem = String(entry.fileName.dropLast(4))
            let shape = FixtureWriter.arrange([], position: index + 1, shape: entry.shape, layout: .nchw, vectors: vectors).shape
            let differs = DarknetLayerOutput.differs(layer)
            if differs && decodedHeads {
                let order = DarknetLayerOutput.order(of: layer)
                let s = layer.outputShape
                var output = NetworkOutputTensor(
                    name: stem, layer: index, layerName: layer.name, shape: order == .locationFirst ? [1, s.height, s.width, s.channels] : shape,
                    rawHead: false)
                (output.darknetBuffer, output.order) = (true, order)
                return output
            }
            return NetworkOutputTensor(name: differs ? stem + "_raw" : stem, layer: index, layerName: layer.name, shape: shape, rawHead: differs)
        }
    }
}
