import FoldKitCore
import Foundation

/// Writes a folded FoldKit network as an ncnn model (Docs/Export.md, "ncnn"): model.param (ncnn's text
/// graph) and model.bin (the weights with ncnn's storage flags). Every layer is lowered to ncnn layers
/// (`NCNNGraphBuilder+Layer.swift` maps each operation to its lowering) before anything is written, so a
/// layer without an exact lowering is refused, naming it, with no file left behind.
///
/// The network given is the one to run: FoldKit's fold pass has already folded batch norm into the
/// convolution and connected weights. The model has one `Input` blob, `input` (C x H x W), and one blob
/// per output, named as the caller names them (an extractor reads each by name).
public enum NCNNExporter {
    /// What was written.
    public struct Summary: Sendable, Equatable {
        /// Layer lines of the param file (Input and Splits included).
        public var layers: Int
        /// Blobs of the param file.
        public var blobs: Int
        /// Bytes of model.param.
        public var paramBytes: Int
        /// Bytes of model.bin.
        public var binBytes: Int
        /// How many layers of each ncnn type, by type.
        public var layerCounts: [String: Int]
    }

    /// The input blob's name.
    public static let inputName = "input"

    /// Lowers `network` and writes `param` and `bin`. `outputs` are the blobs to name (at least one): the
    /// output of network layer `layer` as blob `name`. Throws `FoldKitError` naming the layer when a layer has
    /// no exact lowering.
    public static func write(
        network: Network, outputs: [(name: String, layer: Int)], options: NCNNExportOptions, param: URL, bin: URL
    ) throws -> Summary {
        let layers = try lower(network: network, outputs: outputs, options: options)
        let text = try NCNNParamFile.text(layers)
        do { try Data(text.utf8).write(to: param) } catch {
            throw FoldKitError(.io, "cannot write the param file: \(error.localizedDescription)", file: param.path)
        }
        let binBytes = try NCNNModelBin.write(layers, weightType: options.weightType, to: bin)
        var blobs = Set<String>()
        for layer in layers { blobs.formUnion(layer.tops) }
        return Summary(
            layers: layers.count, blobs: blobs.count, paramBytes: text.utf8.count, binBytes: binBytes,
            layerCounts: Dictionary(layers.map { ($0.type, 1) }, uniquingKeysWith: +))
    }

    /// The layers of the model, Splits in, in file order.
    static func lower(network: Network, outputs: [(name: String, layer: Int)], options: NCNNExportOptions) throws -> [NCNNLayer] {
        guard !outputs.isEmpty else { throw FoldKitError(.usage, "an ncnn model needs at least one output") }
        for output in outputs where !network.layers.indices.contains(output.layer) {
            throw FoldKitError(.usage, "output \(output.name) names no layer", expected: "0 ..< \(network.layers.count)", found: "\(output.layer)")
        }
        var builder = NCNNGraphBuilder(options: options)
        let input = network.inputShape
        builder.op("Input", [], top: inputName, [(0, .int(input.width)), (1, .int(input.height)), (2, .int(input.channels))])
        let outputName = Dictionary(outputs.map { ($0.layer, $0.name) }, uniquingKeysWith: { first, _ in first })

        var names: [String] = []
        names.reserveCapacity(network.layers.count)
        for layer in network.layers {
            let scope = String(format: "layer_%03d", layer.index)
            builder.scope = scope
            builder.layerLabel = layer.label
            builder.layerFile = layer.source.file
            let start = builder.count
            let inputs = layer.inputs.map { $0 == Network.inputIndex ? inputName : names[$0] }
            let result = try builder.lower(layer, inputs: inputs, shapes: layer.inputs.map(network.shape(of:)))
            names.append(builder.settle(result, as: outputName[layer.index] ?? scope, since: start))
        }

        builder.scope = "outputs"
        builder.layerLabel = nil
        builder.layerFile = nil
        for output in outputs where names[output.layer] != output.name {
            // A layer passing an earlier blob through (a detection head, an identity): an alias by name.
            builder.op("Noop", [names[output.layer]], top: output.name)
        }
        return NCNNParamFile.withSplits(builder.layers)
    }
}
