import FoldKitCore
import Foundation

/// From darknet's buffer back to what FoldKit's decoder reads, for engine outputs of a model exported with
/// decoded heads (`verify --engine-outputs` on `export --decode-heads`; Docs/Verify.md, "Engine outputs").
///
/// - `channelMajor` undoes a [region] head's location-first order (a permutation: exact).
/// - `rawEquivalent` gives, per value, an input the head's decoding maps back to the same value: a logistic
///   output s becomes its logit `log(s) - log1p(-s)` (after undoing `scale_x_y`: s = (v + 0.5 (sxy - 1)) /
///   sxy), a softmax output p becomes `log(p)` (a softmax of logs of probabilities summing to 1 gives them
///   back), raw values stay. Saturated values become infinite logits (s = 1: +inf, 0: -inf), which the
///   decoder's logistic maps back to 1 and 0. Only boxes are decoded from it; the layer's deviation is
///   measured on the buffer itself.
extension DarknetLayerOutput {
    /// `values` in `order` as channel-major values of `shape`.
    public static func channelMajor(_ values: [Float], order: Order, shape: ActivationShape) -> [Float] {
        guard order == .locationFirst, values.count == shape.count else { return values }
        let plane = shape.planeSize, channels = shape.channels
        var out = [Float](repeating: 0, count: values.count)
        for c in 0..<channels {
            for location in 0..<plane { out[c * plane + location] = values[location * channels + c] }
        }
        return out
    }

    /// A channel-major input of `layer` whose decoding gives the channel-major buffer `buffer` (the type's
    /// rules); `buffer` itself for layers whose buffer is not a decoding of their input.
    public static func rawEquivalent(_ layer: Layer, buffer: [Float]) -> [Float] {
        guard case .detection(let head) = layer.kind else { return buffer }
        let shape = layer.outputShape, plane = shape.planeSize
        var out = buffer
        switch head.kind {
        case .yolo, .gaussianYolo:
            let entries = head.entriesPerAnchor
            let scale = Double(head.scaleXY), shift = -0.5 * (Double(head.scaleXY) - 1)
            for slot in 0..<head.mask.count {
                let base = slot * entries * plane
                guard base + entries * plane <= out.count else { break }
                for k in 0..<entries {
                    let (logistic, scaled) = head.darknetBufferEntry(k)
                    for i in (base + k * plane)..<(base + (k + 1) * plane) {
                        var v = Double(out[i])
                        if scaled { v = (v - shift) / scale }
                        if logistic { v = logit(v) }
                        out[i] = Float(v)
                    }
                }
            }
        case .region:
            let size = head.coords + head.classes + 1
            for slot in 0..<head.mask.count {
                let base = slot * size * plane
                guard base + size * plane <= out.count else { break }
                for i in (base + 4 * plane)..<(base + 5 * plane) { out[i] = Float(logit(Double(out[i]))) }
                if head.softmax || head.tree != nil {
                    for i in (base + 5 * plane)..<(base + (5 + head.classes) * plane) { out[i] = Float(log(Double(out[i]))) }
                }
            }
        case .detection:
            guard head.softmax else { return buffer }
            for i in 0..<min(head.side * head.side * head.classes, out.count) { out[i] = Float(log(Double(out[i]))) }
        }
        return out
    }

    /// log(s / (1 - s)): -inf at or below 0, +inf at or above 1 (where rounding of `scale_x_y` left s), NaN
    /// for NaN.
    private static func logit(_ s: Double) -> Double {
        if s <= 0 { return -.infinity }
        if s >= 1 { return .infinity }
        return log(s) - log1p(-s)
    }
}
