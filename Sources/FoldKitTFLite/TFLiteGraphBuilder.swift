import FoldKitCore

/// The LiteRT graph under construction: tensors (activations NHWC [1, H, W, C] unless a lowering says
/// otherwise inside itself), constants, and operators in execution order. The lowering of each operation
/// (`TFLiteGraphBuilder+<Family>.swift`) appends operators through `op`, constants through `constant`,
/// `integers` and `weights`.
///
/// Names: a tensor a layer makes is `<scope>/<hint>_<n>` with `scope` the FoldKit layer's (`layer_007`);
/// an output tensor is renamed to the output's name when the network is lowered.
struct TFLiteGraphBuilder {
    /// The weight type.
    let options: TFLiteExportOptions
    private(set) var tensors: [TFLiteTensor] = []
    private(set) var constants: [TFLiteConstant] = []
    private(set) var operations: [TFLiteOperation] = []
    /// The prefix of the names made now: the layer being lowered.
    var scope = "graph"
    /// The layer being lowered, as errors name it.
    var layerLabel: String?
    /// The file the layer came from, as errors name it.
    var layerFile: String?
    /// The first size or int32 constant the layer being lowered needs past 32 bits, which LiteRT's schema
    /// (int32 shapes and constants) cannot hold; `TFLiteExporter.lower` refuses the layer with it.
    var int32Overflow: String?
    private var counter = 0
    /// Constants the lowering computed, by element type, shape and bytes: an equal one is written once.
    private var computed: [ComputedConstant: Int] = [:]

    private struct ComputedConstant: Hashable {
        var type: TFLiteTensor.ElementType
        var shape: [Int]
        var bytes: [UInt8]
    }

    init(options: TFLiteExportOptions) {
        self.options = options
    }

    /// The shape of tensor `t`.
    func shape(_ t: Int) -> [Int] { tensors[t].shape }

    /// Renames tensor `t`.
    mutating func rename(_ t: Int, _ name: String) { tensors[t].name = name }

    private mutating func fresh(_ hint: String) -> String {
        counter += 1
        return "\(scope)/\(hint)_\(counter)"
    }

    /// A float32 activation tensor of `shape`.
    mutating func activation(_ shape: [Int], hint: String) -> Int {
        noteInt32Overflow(shape, what: "a \(hint) tensor of shape \(shape)")
        tensors.append(TFLiteTensor(name: fresh(hint), shape: shape, type: .float32, buffer: 0))
        return tensors.count - 1
    }

    /// Appends `op` reading `inputs` and writing a new float32 tensor of `shape`; returns it.
    mutating func op(_ op: TFLiteOperator, _ inputs: [Int], shape: [Int], options: TFLiteOptions? = nil) -> Int {
        let y = activation(shape, hint: op.schemaName.lowercased())
        operations.append(TFLiteOperation(op: op, inputs: inputs, outputs: [y], options: options))
        return y
    }

    /// Appends `op` writing a new bool tensor of `shape` (comparisons); returns it.
    mutating func predicate(_ op: TFLiteOperator, _ inputs: [Int], shape: [Int], options: TFLiteOptions) -> Int {
        noteInt32Overflow(shape, what: "a bool tensor of shape \(shape)")
        tensors.append(TFLiteTensor(name: fresh(op.schemaName.lowercased()), shape: shape, type: .bool, buffer: 0))
        operations.append(TFLiteOperation(op: op, inputs: inputs, outputs: [tensors.count - 1], options: options))
        return tensors.count - 1
    }

    /// Appends `op` whose output has the shape of its first input (element-wise operators).
    mutating func same(_ op: TFLiteOperator, _ inputs: [Int], options: TFLiteOptions? = nil) -> Int {
        self.op(op, inputs, shape: shape(inputs[0]), options: options)
    }

    private mutating func constantTensor(_ shape: [Int], type: TFLiteTensor.ElementType, hint: String, _ constant: TFLiteConstant) -> Int {
        constants.append(constant)
        tensors.append(TFLiteTensor(name: fresh(hint), shape: shape, type: type, buffer: constants.count))
        return tensors.count - 1
    }

    /// A constant the lowering computed: one tensor for equal ones (same type, shape and bytes).
    private mutating func computedConstant(_ bytes: [UInt8], type: TFLiteTensor.ElementType, shape: [Int], hint: String) -> Int {
        let key = ComputedConstant(type: type, shape: shape, bytes: bytes)
        if let tensor = computed[key] { return tensor }
        let tensor = constantTensor(shape, type: type, hint: hint, TFLiteConstant(byteCount: bytes.count) { bytes })
        computed[key] = tensor
        return tensor
    }

    /// A float32 constant the lowering computed (always float32: scalars, zero biases, batch norm affines).
    mutating func constant(_ values: [Float], shape: [Int], hint: String) -> Int {
        precondition(values.count == shape.reduce(1, *), "constant \(hint): \(values.count) values for \(shape)")
        return computedConstant(Self.float32Bytes(values), type: .float32, shape: shape, hint: hint)
    }

    /// A float32 scalar constant (shape [], broadcast by the element-wise operators).
    mutating func scalar(_ value: Float, hint: String = "c") -> Int { constant([value], shape: [], hint: hint) }

    /// An int32 constant (shapes, permutations, paddings, slice bounds).
    mutating func integers(_ values: [Int], shape: [Int]? = nil, hint: String = "i") -> Int {
        noteInt32Overflow(values, what: "int32 constant \(values)")
        let bytes = values.flatMap { v -> [UInt8] in withUnsafeBytes(of: Int32(truncatingIfNeeded: v).littleEndian) { Array($0) } }
        return computedConstant(bytes, type: .int32, shape: shape ?? [values.count], hint: hint)
    }

    /// The fewest values a constant stored as float16 holds: a DEQUANTIZE with its float32 output tensor costs
    /// about 120 bytes of FlatBuffer (the operator, the tensor with its shape and name), so a smaller constant
    /// stays float32 - half precision would make the file larger.
    static let smallestHalfConstant = 128

    /// A weight tensor of the layer, `rearrange`d (if given) from FoldKit's order to LiteRT's and stored as
    /// `options.weightType`: float32 as it is; float16 (IEEE binary16, round to nearest even) as LiteRT's own
    /// float16 convention, a FLOAT16 constant feeding a DEQUANTIZE operator whose float32 output the
    /// layer reads - for `halfAllowed` tensors of at least `smallestHalfConstant` values. A value past 65504
    /// in a float16 model is refused, naming the layer.
    mutating func weights(
        _ tensor: WeightTensor, shape: [Int], hint: String, halfAllowed: Bool = true, rearrange: (@Sendable ([Float]) -> [Float])? = nil
    ) throws -> Int {
        let count = shape.reduce(1, *)
        guard tensor.count == count else {
            throw FoldKitError(
                .badInput, "\(hint) tensor does not have the size the layer needs", file: layerFile, layer: layerLabel, expected: "\(count) values",
                found: "\(tensor.count)")
        }
        let (label, file) = (layerLabel, layerFile)
        guard options.weightType == .float16 && halfAllowed && count >= Self.smallestHalfConstant else {
            return constantTensor(
                shape, type: .float32, hint: hint,
                TFLiteConstant(byteCount: count * 4) {
                    let values = try tensor.floats()
                    return Self.float32Bytes(rearrange?(values) ?? values)
                })
        }
        let half = constantTensor(
            shape, type: .float16, hint: hint + "_f16",
            TFLiteConstant(byteCount: count * 2) {
                let values = try tensor.floats()
                return try Self.float16Bytes(rearrange?(values) ?? values, hint: hint, layer: label, file: file)
            })
        return op(.dequantize, [half], shape: shape, options: .dequantize)
    }

    /// Records `what` as `int32Overflow` (the first one) when a value of `values` is outside Int32.
    private mutating func noteInt32Overflow(_ values: [Int], what: String) {
        guard int32Overflow == nil, values.contains(where: { $0 > Int(Int32.max) || $0 < Int(Int32.min) }) else { return }
        int32Overflow = what
    }

    /// A refusal of the layer being lowered: LiteRT has no exact lowering for it.
    func refuse(_ reason: String) -> FoldKitError {
        FoldKitError(.unsupported, "no exact LiteRT lowering: \(reason)", file: layerFile, layer: layerLabel)
    }

    /// The values' IEEE bits, little-endian (the byte order of every platform FoldKit builds on, and the
    /// FlatBuffer's).
    static func float32Bytes(_ values: [Float]) -> [UInt8] {
        precondition(UInt32(1).littleEndian == 1, "FoldKit writes .tflite constants on little-endian machines")
        return values.withUnsafeBytes { Array($0) }
    }

    static func float16Bytes(_ values: [Float], hint: String, layer: String?, file: String?) throws -> [UInt8] {
        var bits = [UInt16](repeating: 0, count: values.count)
        for (i, v) in values.enumerated() {
            guard v.isNaN || abs(v) <= HalfPrecision.largestFinite else {
                throw FoldKitError(
                    .unsupported, "\(hint) holds \(v), past float16's largest value \(HalfPrecision.largestFinite)", file: file, layer: layer)
            }
            bits[i] = HalfPrecision.bits(v)
        }
        return bits.withUnsafeBytes { Array($0) }
    }
}
