import FoldKit

/// `inspect --json`: the layer table (Docs/CLI.md "JSON documents").
struct InspectResult: Encodable {
    struct Row: Encodable {
        var index: Int
        var name: String
        var type: String
        /// Input layers; -1 is the network input.
        var inputs: [Int]
        /// [C, H, W]
        var outputShape: [Int]
        var parameters: Int
        /// [start, end) in the Darknet .weights file.
        var weightsByteRange: [Int]?
        var bnEpsilon: Double?
        var bnEpsilonMode: String?
    }

    var format: String
    var files: [String]
    /// [C, H, W]
    var inputShape: [Int]
    var layers: [Row]
    var parameterCount: Int
    var metadata: [String: String]
    /// With weights: the float16 hazards of the folded weights; absent without weights.
    var float16Hazards: [Float16Hazard]?
    /// With weights: NaN, infinity and unrescued batch-norm variances (`WeightHealthCheck`), one line
    /// each naming tensor, layer, element and byte offset; empty when healthy, absent without weights.
    var weightProblems: [String]?

    private enum CodingKeys: String, CodingKey {
        case format, files, inputShape, layers, parameterCount, metadata, float16Hazards, weightProblems
    }

    /// Every field, null when absent (a cfg alone has no hazards or weight problems): each document has
    /// the same top-level keys (Docs/CLI.md "JSON documents").
    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(format, forKey: .format)
        try container.encode(files, forKey: .files)
        try container.encode(inputShape, forKey: .inputShape)
        try container.encode(layers, forKey: .layers)
        try container.encode(parameterCount, forKey: .parameterCount)
        try container.encode(metadata, forKey: .metadata)
        try container.encode(float16Hazards, forKey: .float16Hazards)
        try container.encode(weightProblems, forKey: .weightProblems)
    }

    init(_ network: Network, float16Hazards: [Float16Hazard]?, weightProblems: [String]? = nil) {
        format = network.format.rawValue
        files = network.sourceFiles
        inputShape = [network.inputShape.channels, network.inputShape.height, network.inputShape.width]
        layers = network.layers.map { layer in
            let convention: EpsilonConvention?
            switch layer.kind {
            case .convolution(let c): convention = c.batchNorm?.convention
            case .fullyConnected(let f): convention = f.batchNorm?.convention
            case .batchNorm(let b): convention = b.convention
            default: convention = nil
            }
            return Row(
                index: layer.index, name: layer.name, type: network.typeName(of: layer), inputs: layer.inputs,
                outputShape: [layer.outputShape.channels, layer.outputShape.height, layer.outputShape.width],
                parameters: layer.kind.parameters.reduce(0) { $0 + $1.tensor.count },
                weightsByteRange: layer.source.weightsByteRange.map { [$0.lowerBound, $0.upperBound] },
                bnEpsilon: convention?.epsilon, bnEpsilonMode: convention?.placement.rawValue)
        }
        parameterCount = network.parameterCount
        metadata = network.metadata.entries
        self.float16Hazards = float16Hazards
        self.weightProblems = weightProblems
    }
}
