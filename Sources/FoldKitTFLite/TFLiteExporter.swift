import FoldKitCore
import Foundation

/// Writes a folded FoldKit network as a LiteRT model (Docs/Export.md, "LiteRT"): one .tflite file of
/// builtin operators (`TFLiteModelFile`, checked against flatc and LiteRT's own reader by the tests). Every
/// layer is lowered (`TFLiteGraphBuilder+Layer.swift` maps each operation to its lowering) before anything is
/// written, so a layer without an exact lowering is refused, naming it, with no file left behind.
///
/// The network given is the one to run: FoldKit's fold pass has already folded batch norm into the
/// convolution and connected weights. The model has one input, `input` (NHWC [1, H, W, C], float32), and
/// one output per `outputs` entry, NHWC [1, H, W, C] (a vector C as [1, 1, 1, C]), named as the caller names
/// them. `metadata` entries become the model's `metadata` (name + buffer with the bytes).
public enum TFLiteExporter {
    /// What was written.
    public struct Summary: Sendable, Equatable {
        /// Operators of the graph (DEQUANTIZE included).
        public var operators: Int
        /// Tensors of the graph.
        public var tensors: Int
        /// Bytes of the .tflite file.
        public var bytes: Int
        /// How many operators of each builtin, by the schema's name.
        public var operatorCounts: [String: Int]
    }

    /// The input tensor's name.
    public static let inputName = "input"

    /// Lowers `network` and writes the model to `url`. `outputs` are the tensors to name (at least one): the
    /// output of network layer `layer` as tensor `name`. Throws `FoldKitError` naming the layer when a layer
    /// has no exact lowering.
    public static func write(
        network: Network, outputs: [(name: String, layer: Int)], options: TFLiteExportOptions, metadata: [(name: String, bytes: [UInt8])],
        description: String, to url: URL
    ) throws -> Summary {
        if options.weightType == .float16 && !HalfPrecision.isAvailable {
            throw FoldKitError(.unsupported, "float16 weights need Swift's Float16, which Intel Macs lack")
        }
        let builder = try lower(network: network, outputs: outputs, options: options)
        let outputIndices = try outputs.map { output -> Int in
            guard let index = builder.tensors.firstIndex(where: { $0.name == output.name }) else {
                throw FoldKitError(.io, "output \(output.name) has no tensor")
            }
            return index
        }
        let bytes = try TFLiteModelFile.write(
            tensors: builder.tensors, operations: builder.operations, constants: builder.constants, inputs: [0], outputs: outputIndices,
            metadata: metadata, description: description, to: url)
        return Summary(
            operators: builder.operations.count, tensors: builder.tensors.count, bytes: bytes,
            operatorCounts: Dictionary(builder.operations.map { ($0.op.schemaName, 1) }, uniquingKeysWith: +))
    }

    /// The graph: tensor 0 is the input.
    static func lower(network: Network, outputs: [(name: String, layer: Int)], options: TFLiteExportOptions) throws -> TFLiteGraphBuilder {
        guard !outputs.isEmpty else { throw FoldKitError(.usage, "a LiteRT model needs at least one output") }
        for output in outputs where !network.layers.indices.contains(output.layer) {
            throw FoldKitError(.usage, "output \(output.name) names no layer", expected: "0 ..< \(network.layers.count)", found: "\(output.layer)")
        }
        var builder = TFLiteGraphBuilder(options: options)
        let input = builder.activation(builder.nhwc(network.inputShape), hint: "input")
        builder.rename(input, inputName)

        var results: [Int] = []
        results.reserveCapacity(network.layers.count)
        for layer in network.layers {
            let scope = String(format: "layer_%03d", layer.index)
            builder.scope = scope
            builder.layerLabel = layer.label
            builder.layerFile = layer.source.file
            let start = builder.tensors.count
            let inputs = layer.inputs.map { $0 == Network.inputIndex ? input : results[$0] }
            let result = try builder.lower(layer, inputs: inputs, shapes: layer.inputs.map(network.shape(of:)))
            if let overflow = builder.int32Overflow {
                throw builder.refuse("LiteRT holds shapes and sizes as 32-bit integers, and the lowering needs \(overflow)")
            }
            let expected = builder.nhwc(layer.outputShape)
            guard builder.shape(result) == expected else {
                throw builder.refuse("the lowering gives \(builder.shape(result)), the layer \(expected) (a FoldKit bug)")
            }
            if result >= start { builder.rename(result, scope) }
            results.append(result)
        }

        builder.scope = "outputs"
        builder.layerLabel = nil
        builder.layerFile = nil
        var named = Set<Int>()
        for output in outputs {
            var tensor = results[output.layer]
            if tensor == input || named.contains(tensor) {
                // The graph input, or a tensor already named for another output: a copy of its own (RESHAPE to
                // its own shape), LiteRT naming each output tensor once.
                tensor = builder.reshape(tensor, to: builder.shape(tensor))
            }
            builder.rename(tensor, output.name)
            named.insert(tensor)
        }
        return builder
    }
}
