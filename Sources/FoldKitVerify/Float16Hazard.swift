import FoldKitCore

/// Where float16 storage (MPSImage half textures, half weights) would lose a model's numbers.
///
/// float16 holds magnitudes up to 65504; below 6.1e-5 (2^-14) values are subnormal and keep fewer
/// significant bits, below 6.0e-8 (2^-24) they round to zero. Reported per layer and output channel:
/// folded weights or biases (convolutions, transposed convolutions, connected layers; the scale and
/// shift of a per-channel affine and of a layer normalization) beyond the range or in the subnormal
/// range, and (given layer outputs) activations that overflow.
public struct Float16Hazard: Codable, Equatable, Sendable {
    /// What goes out of float16's range (the raw value is the sentence).
    public enum Kind: String, Codable, Sendable {
        case weightOverflow = "weight beyond float16 range (|w| > 65504)"
        case biasOverflow = "bias beyond float16 range (|b| > 65504)"
        case weightSubnormal = "nonzero weights in float16 subnormal range (|w| < 6.1e-5)"
        case activationOverflow = "activation beyond float16 range (|x| > 65504)"
    }

    /// The layer's index.
    public var layer: Int
    /// The layer's name.
    public var name: String
    /// What goes out of range.
    public var kind: Kind
    /// Output channels affected (weights: filters; activations: feature channels).
    public var channels: [Int]
    /// The largest magnitude seen (or the smallest nonzero one for subnormals).
    public var magnitude: Float

    /// The largest finite float16, 65504.
    public static let largest: Float = 65504
    /// The smallest normal float16, 2^-14.
    public static let smallestNormal: Float = 6.103515625e-05

    /// Scans the folded network's parameters, and the given per-layer outputs (channel-major) if any.
    public static func scan(folded: Network, outputs: [[Float]]? = nil) throws -> [Float16Hazard] {
        var hazards: [Float16Hazard] = []
        for layer in folded.layers {
            // The output channel of a weight row and of a bias value (`ChannelTensors`: a locally connected
            // layer has a row per location and output, [L, O, ...], and a bias per output element, [O, L]).
            let tensors = layer.kind.operation.channelTensors
            let weights = try tensors?.weights?.floats(), bias = try tensors?.bias?.floats()
            let outputsCount = tensors?.weights == nil ? 0 : (tensors?.rows ?? 0)
            let rowChannel = { (row: Int) in tensors?.rowChannel.channel(row) ?? row }
            let biasChannel = { (index: Int) in tensors?.biasChannel.channel(index) ?? index }
            if let weights, outputsCount > 0 {
                let per = weights.count / outputsCount
                var over: [Int] = [], tiny: [Int] = []
                var largest: Float = 0, smallest = Float.infinity
                for o in 0..<outputsCount {
                    var isOver = false, isTiny = false
                    for k in 0..<per {
                        let m = abs(weights[o * per + k])
                        if m > Float16Hazard.largest { isOver = true; largest = max(largest, m) }
                        if m > 0 && m < Float16Hazard.smallestNormal { isTiny = true; smallest = min(smallest, m) }
                    }
                    if isOver { over.append(rowChannel(o)) }
                    if isTiny { tiny.append(rowChannel(o)) }
                }
                over = Array(Set(over)).sorted()
                tiny = Array(Set(tiny)).sorted()
                if !over.isEmpty {
                    hazards.append(Float16Hazard(layer: layer.index, name: layer.name, kind: .weightOverflow, channels: over, magnitude: largest))
                }
                if !tiny.isEmpty {
                    hazards.append(Float16Hazard(layer: layer.index, name: layer.name, kind: .weightSubnormal, channels: tiny, magnitude: smallest))
                }
            }
            if let bias {
                let over = bias.indices.filter { abs(bias[$0]) > Float16Hazard.largest }
                if !over.isEmpty {
                    hazards.append(
                        Float16Hazard(
                            layer: layer.index, name: layer.name, kind: .biasOverflow, channels: Array(Set(over.map(biasChannel))).sorted(),
                            magnitude: over.map { abs(bias[$0]) }.max() ?? 0))
                }
            }
            if let outputs, layer.index < outputs.count, let hazard = activationHazard(layer: layer, output: outputs[layer.index]) {
                hazards.append(hazard)
            }
        }
        return hazards
    }

    /// The channels of one layer's output (channel-major) beyond float16's range, or nil.
    public static func activationHazard(layer: Layer, output values: [Float]) -> Float16Hazard? {
        let plane = max(layer.outputShape.planeSize, 1)
        var channels: [Int] = []
        var largest: Float = 0
        for c in 0..<layer.outputShape.channels {
            var m: Float = 0
            for i in (c * plane)..<min((c + 1) * plane, values.count) { m = max(m, abs(values[i])) }
            if m > Float16Hazard.largest { channels.append(c); largest = max(largest, m) }
        }
        return channels.isEmpty
            ? nil : Float16Hazard(layer: layer.index, name: layer.name, kind: .activationOverflow, channels: channels, magnitude: largest)
    }

    /// One line per hazard, channels abbreviated after 12.
    public var text: String {
        let list = channels.prefix(12).map(String.init).joined(separator: ",") + (channels.count > 12 ? ",... (\(channels.count) channels)" : "")
        return "layer \(layer)\(name == String(layer) ? "" : " '\(name)'"): \(kind.rawValue), channels [\(list)], magnitude \(magnitude)"
    }
}
