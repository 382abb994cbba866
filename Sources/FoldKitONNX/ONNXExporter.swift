import FoldKitCore
import FoldKitONNXProto
import Foundation

/// Writes a folded FoldKit network as an onnx model (Docs/Export.md): every layer lowered to standard onnx
/// operators of the default domain (`ONNXGraphBuilder+Layer.swift` maps each operation to its lowering),
/// weights as initializers, one graph input `input` and the graph outputs the caller names.
///
/// The network given is the one to run: FoldKit's fold pass has already folded batch norm into the
/// convolution and connected weights (what cannot fold is a per-channel affine, written as Mul and Add).
/// Every layer is lowered before anything is written, so a layer without an exact lowering is refused,
/// naming it, with no file left behind.
public enum ONNXExporter {
    /// What was written.
    public struct Summary: Sendable, Equatable {
        /// Nodes in the graph.
        public var nodes: Int
        /// Initializers (weights and constants).
        public var initializers: Int
        /// Bytes of the model file.
        public var bytes: Int
        /// How many nodes of each operator type, by type.
        public var operatorCounts: [String: Int]
    }

    /// Lowers `network` and writes the model to `url`. `outputs` are the graph outputs (at least one);
    /// `metadata` goes into the model's `metadata_props` (sorted by key); `producerVersion` is FoldKit's
    /// version. `lateMetadata`, when given, is asked for after the weights are written (work that can
    /// overlap the writing, such as source files' digests) and its entries are appended to
    /// `metadata_props` at the end of the file, sorted by key (`ONNXModelFile`: repeated fields of
    /// repeated messages concatenate). Throws `FoldKitError` naming the layer when a layer has no exact
    /// lowering.
    public static func write(
        network: Network, outputs: [ONNXGraphOutput], metadata: [String: String], lateMetadata: (() throws -> [String: String])? = nil,
        producerVersion: String, options: ONNXExportOptions, to url: URL
    ) throws -> Summary {
        let (model, initializers) = try model(
            network: network, outputs: outputs, metadata: metadata, producerVersion: producerVersion, options: options)
        let trailer = lateMetadata.map { late in
            { () throws -> Onnx_ModelProto in
                var part = Onnx_ModelProto()
                part.metadataProps = metadataEntries(try late())
                return part
            }
        }
        let bytes = try ONNXModelFile.write(model: model, initializers: initializers, trailer: trailer, to: url)
        let counts = Dictionary(model.graph.node.map { ($0.opType, 1) }, uniquingKeysWith: +)
        return Summary(nodes: model.graph.node.count, initializers: initializers.count, bytes: bytes, operatorCounts: counts)
    }

    /// The model without its initializers' values, and the initializers (read when written).
    static func model(
        network: Network, outputs: [ONNXGraphOutput], metadata: [String: String], producerVersion: String, options: ONNXExportOptions
    ) throws -> (Onnx_ModelProto, [ONNXInitializer]) {
        guard (ONNXExportOptions.minimumOpset...ONNXExportOptions.maximumOpset).contains(options.opset) else {
            throw FoldKitError(
                .usage, "opset \(options.opset) is not written", expected: "\(ONNXExportOptions.minimumOpset) to \(ONNXExportOptions.maximumOpset)",
                found: "\(options.opset)")
        }
        guard !outputs.isEmpty else { throw FoldKitError(.usage, "an onnx model needs at least one output") }
        var builder = ONNXGraphBuilder(options: options)
        let inputName = "input"
        let input = network.inputShape
        let inputDims =
            options.inputLayout == .nchw ? ONNXGraphBuilder.dims(input) : [1, input.height, input.width, input.channels]
        var first = inputName
        if options.inputLayout == .nhwc { first = builder.transpose(first, perm: [0, 3, 1, 2]) }
        if options.elementType == .float16 { first = builder.node("Cast", [first], [ONNXAttribute.int("to", Int(ONNXElementType.float16Code))]) }

        var names: [String] = []
        names.reserveCapacity(network.layers.count)
        for layer in network.layers {
            builder.scope = String(format: "layer_%03d", layer.index)
            builder.layerLabel = layer.label
            builder.layerFile = layer.source.file
            let inputs = layer.inputs.map { $0 == Network.inputIndex ? first : names[$0] }
            names.append(try builder.lower(layer, inputs: inputs, shapes: layer.inputs.map(network.shape(of:))))
        }

        builder.scope = "outputs"
        builder.layerLabel = nil
        builder.layerFile = nil
        for output in outputs {
            guard network.layers.indices.contains(output.layer) else {
                throw FoldKitError(
                    .usage, "graph output \(output.name) names no layer", expected: "0 ..< \(network.layers.count)", found: "\(output.layer)")
            }
            let shape = network.layers[output.layer].outputShape
            guard output.shape.reduce(1, *) == shape.count else {
                throw FoldKitError(
                    .usage, "graph output \(output.name) has another size than its layer", expected: "\(shape.count) values", found: "\(output.shape)"
                )
            }
            var tensor = names[output.layer]
            var dims = ONNXGraphBuilder.dims(shape)
            if output.darknetBuffer {
                let layer = network.layers[output.layer]
                (builder.scope, builder.layerLabel, builder.layerFile) = (
                    String(format: "layer_%03d", layer.index) + "/decoded", layer.label, layer.source.file
                )
                (tensor, dims) = try builder.darknetBuffer(of: layer, input: tensor)
                (builder.scope, builder.layerLabel, builder.layerFile) = ("outputs", nil, nil)
            }
            if output.shape != dims { tensor = builder.reshape(tensor, to: output.shape) }
            if options.elementType == .float16 {
                builder.node("Cast", [tensor], [ONNXAttribute.int("to", Int(ONNXElementType.floatCode))], output: output.name)
            } else {
                builder.node("Identity", [tensor], output: output.name)
            }
        }

        var graph = Onnx_GraphProto()
        graph.name = "foldkit"
        graph.node = builder.nodes
        graph.input = [valueInfo(inputName, dims: inputDims)]
        graph.output = outputs.map { valueInfo($0.name, dims: $0.shape) }
        var model = Onnx_ModelProto()
        model.irVersion = options.irVersion
        var opset = Onnx_OperatorSetIdProto()
        opset.domain = ""
        opset.version = Int64(options.opset)
        model.opsetImport = [opset]
        model.producerName = "foldkit"
        model.producerVersion = producerVersion
        model.docString = "Folded by FoldKit from \(network.sourceFiles.map { URL(fileURLWithPath: $0).lastPathComponent }.joined(separator: ", "))"
        model.metadataProps = metadataEntries(metadata)
        model.graph = graph
        return (model, builder.initializers)
    }

    /// A float32 tensor value of `dims` (the graph's input and outputs are float32 at either element type).
    /// `metadata` as `metadata_props` entries, sorted by key.
    private static func metadataEntries(_ metadata: [String: String]) -> [Onnx_StringStringEntryProto] {
        metadata.keys.sorted().map { key in
            var entry = Onnx_StringStringEntryProto()
            entry.key = key
            entry.value = metadata[key] ?? ""
            return entry
        }
    }

    private static func valueInfo(_ name: String, dims: [Int]) -> Onnx_ValueInfoProto {
        var shape = Onnx_TensorShapeProto()
        shape.dim = dims.map { size in
            var dim = Onnx_TensorShapeProto.Dimension()
            dim.dimValue = Int64(size)
            return dim
        }
        var tensor = Onnx_TypeProto.Tensor()
        tensor.elemType = ONNXElementType.floatCode
        tensor.shape = shape
        var type = Onnx_TypeProto()
        type.tensorType = tensor
        var info = Onnx_ValueInfoProto()
        info.name = name
        info.type = type
        return info
    }
}
