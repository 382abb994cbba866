import FoldKitBlobFormat
import FoldKitCore
import FoldKitONNX
import Foundation

/// The `metadata_props` of an exported onnx model: the blob manifest's facts, each value JSON (never a
/// Python repr), so an app or a script reads them with any JSON parser
/// (`onnxruntime.InferenceSession(...).get_modelmeta().custom_metadata_map`). Keys (Docs/Export.md):
///
/// | key | value |
/// |---|---|
/// | `foldkit.version` | the FoldKit version that wrote the model (a JSON string) |
/// | `foldkit.input` | the input convention: `BlobInput` (shape C x H x W, channel order, value scale, resize rule) plus `layout` and `dims` of the graph input |
/// | `foldkit.heads` | every detection head's decoding parameters (`BlobHead`: layer, output shape, anchors, mask, classes, coords, scale_x_y, new_coords, softmax, class tree) |
/// | `foldkit.class_names` | the class names, when known |
/// | `foldkit.outputs` | the graph outputs (`NetworkOutputTensor`: name, layer, shape, whether a raw head) |
/// | `foldkit.source` | format, source files with their SHA-256, batch-norm epsilon and where it goes |
/// | `foldkit.layers` | the number of layers of the network (a JSON number) |
/// | `foldkit.dtype` | float32 or float16 (weights and compute) |
enum ONNXMetadata {
    /// The graph input as the metadata describes it.
    struct Input: Encodable {
        var convention: BlobInput
        var layout: String
        var dims: [Int]
        var dtype = "float32"
    }

    /// `properties` (each value JSON text) as one JSON object, keys sorted, one per line: ncnn's metadata.json
    /// and LiteRT's "foldkit" metadata entry.
    static func jsonObject(_ properties: [String: String]) -> String {
        "{\n" + properties.keys.sorted().map { "  \"\($0)\": \(properties[$0] ?? "null")" }.joined(separator: ",\n") + "\n}\n"
    }

    static func properties(
        network: Network, outputs: [NetworkOutputTensor], classNames: [String]?, sourceSHA256: [String: String], options: ONNXExportOptions
    ) throws -> [String: String] {
        let shape = network.inputShape
        let dims = options.inputLayout == .nchw ? [1, shape.channels, shape.height, shape.width] : [1, shape.height, shape.width, shape.channels]
        return try properties(
            network: network, outputs: outputs, classNames: classNames, sourceSHA256: sourceSHA256, inputLayout: options.inputLayout.rawValue,
            inputDims: dims, dtype: options.elementType.rawValue)
    }

    /// The same facts for any exported format (the ncnn export writes them as metadata.json): the graph
    /// input's `inputLayout` and `inputDims`, and `dtype` (float32 or float16).
    static func properties(
        network: Network, outputs: [NetworkOutputTensor], classNames: [String]?, sourceSHA256: [String: String], inputLayout: String,
        inputDims dims: [Int], dtype: String
    ) throws -> [String: String] {
        let source = BlobSource(
            format: network.format.rawValue, files: network.sourceFiles.map { URL(fileURLWithPath: $0).lastPathComponent }, sha256: sourceSHA256,
            bnEpsilon: network.epsilonConvention.epsilon, bnEpsilonMode: network.epsilonConvention.placement.rawValue)
        var properties = [
            "foldkit.version": try json(FoldKitVersion.string),
            "foldkit.input": try json(Input(convention: BlobInput(network), layout: inputLayout, dims: dims)),
            "foldkit.heads": try json(BlobHead.heads(of: network)),
            "foldkit.outputs": try json(outputs),
            "foldkit.source": try json(source),
            "foldkit.layers": try json(network.layers.count),
            "foldkit.dtype": try json(dtype),
        ]
        if let classNames { properties["foldkit.class_names"] = try json(classNames) }
        return properties
    }

    /// Compact JSON with sorted keys.
    private static func json<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
