import FoldKitCore
import FoldKitONNXProto
import Foundation

/// The graph under construction: nodes in execution order, initializers (read when written), and the
/// names handed out. The lowering of each operation (`ONNXGraphBuilder+<Operation>.swift`) appends nodes
/// through `node(_:_:_:)` and constants through `floats`, `int64s` and `weights`.
///
/// Names: every tensor a layer makes is `<scope>/<hint>_<n>` with `scope` the layer's (`layer_007`), so a
/// model viewer shows which layer each node came from; n counts over the whole graph, so names are unique.
struct ONNXGraphBuilder {
    /// Opset, element type, input layout.
    let options: ONNXExportOptions
    /// The nodes, in execution order (onnx requires topological order).
    private(set) var nodes: [Onnx_NodeProto] = []
    /// The initializers, in the order they were made.
    private(set) var initializers: [ONNXInitializer] = []
    /// The prefix of the names made now: the layer being lowered.
    var scope = "graph"
    /// The layer being lowered, as errors name it.
    var layerLabel: String?
    /// The file the layer came from, as errors name it.
    var layerFile: String?
    private var counter = 0

    init(options: ONNXExportOptions) {
        self.options = options
    }

    /// The opset the graph is written for.
    var opset: Int { options.opset }

    /// A name not handed out before: `<scope>/<hint>_<n>`.
    mutating func fresh(_ hint: String) -> String {
        counter += 1
        return "\(scope)/\(hint)_\(counter)"
    }

    /// Appends node `op` (default domain) reading `inputs` ("" for an optional input left out) and returns
    /// the name of its one output (`output`, or a fresh name).
    @discardableResult
    mutating func node(_ op: String, _ inputs: [String], _ attributes: [Onnx_AttributeProto] = [], output: String? = nil) -> String {
        let name = output ?? fresh(op)
        var node = Onnx_NodeProto()
        node.opType = op
        node.input = inputs
        node.output = [name]
        node.name = output.map { "\(scope)/\(op)->\($0)" } ?? name
        node.attribute = attributes
        nodes.append(node)
        return name
    }

    /// A constant of the graph's element type (float32 or float16) holding `values` with `dims` (empty: a scalar).
    mutating func floats(_ values: [Float], dims: [Int], hint: String = "const") -> String {
        add(values: { values }, dims: dims, dataType: options.elementType.dataType, hint: hint)
    }

    /// A scalar of the graph's element type.
    mutating func scalar(_ value: Float, hint: String = "scalar") -> String {
        floats([value], dims: [], hint: hint)
    }

    /// A float32 constant whatever the graph's element type (Resize's scales are float32 by the operator's
    /// definition).
    mutating func float32s(_ values: [Float], dims: [Int], hint: String = "const") -> String {
        add(values: { values }, dims: dims, dataType: ONNXElementType.floatCode, hint: hint)
    }

    /// A one-dimensional INT64 constant (shapes, axes, pads, slice bounds).
    mutating func int64s(_ values: [Int], hint: String = "ints") -> String {
        let name = fresh(hint)
        initializers.append(
            ONNXInitializer(
                name: name, dims: [values.count], dataType: ONNXElementType.int64Code, layer: layerLabel, file: layerFile,
                payload: .int64s(values.map(Int64.init))))
        return name
    }

    /// A weight tensor of the layer, read when the model is written, with `dims`; `rearrange` (if given)
    /// maps the values as read to the order `dims` describes. The tensor's element count must equal the
    /// product of `dims`.
    mutating func weights(
        _ tensor: WeightTensor, dims: [Int], hint: String, rearrange: (@Sendable ([Float]) -> [Float])? = nil
    ) throws -> String {
        let count = dims.reduce(1, *)
        guard tensor.count == count else {
            throw FoldKitError(
                .badInput, "\(hint) tensor does not have the size the layer needs", file: layerFile, layer: layerLabel,
                expected: "\(count) values (\(dims.map(String.init).joined(separator: "x")))", found: "\(tensor.count)")
        }
        let read: () throws -> [Float] = {
            let values = try tensor.floats()
            return rearrange?(values) ?? values
        }
        return add(values: read, dims: dims, dataType: options.elementType.dataType, hint: hint)
    }

    /// A constant computed in float64 and rounded once to the graph's element type.
    mutating func doubles(_ values: [Double], dims: [Int], hint: String) -> String {
        floats(values.map { Float($0) }, dims: dims, hint: hint)
    }

    private mutating func add(values: @escaping () throws -> [Float], dims: [Int], dataType: Int32, hint: String) -> String {
        let name = fresh(hint)
        initializers.append(
            ONNXInitializer(name: name, dims: dims, dataType: dataType, layer: layerLabel, file: layerFile, payload: .floats(values)))
        return name
    }

    /// A refusal of the layer being lowered: it has no exact lowering at this opset or element type.
    func refuse(_ reason: String) -> FoldKitError {
        FoldKitError(.unsupported, "no exact ONNX lowering: \(reason)", file: layerFile, layer: layerLabel)
    }
}

/// onnx `AttributeProto` values.
enum ONNXAttribute {
    static func int(_ name: String, _ value: Int) -> Onnx_AttributeProto {
        var a = Onnx_AttributeProto()
        a.name = name
        a.type = .int
        a.i = Int64(value)
        return a
    }

    static func ints(_ name: String, _ values: [Int]) -> Onnx_AttributeProto {
        var a = Onnx_AttributeProto()
        a.name = name
        a.type = .ints
        a.ints = values.map(Int64.init)
        return a
    }

    static func float(_ name: String, _ value: Float) -> Onnx_AttributeProto {
        var a = Onnx_AttributeProto()
        a.name = name
        a.type = .float
        a.f = value
        return a
    }

    static func string(_ name: String, _ value: String) -> Onnx_AttributeProto {
        var a = Onnx_AttributeProto()
        a.name = name
        a.type = .string
        a.s = Data(value.utf8)
        return a
    }
}
