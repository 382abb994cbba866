import FoldKitCore
import FoldKitDetection
import Foundation

/// What darknet's own layer buffer holds at inference for the layers where it differs from FoldKit's
/// layer output, so that fixture packs hold what an engine ported from darknet computes (Docs/Fixtures.md,
/// "Detection heads"). FoldKit's network passes a head's input through unchanged (the verifier decodes it);
/// darknet's forward functions activate it in place (AlexeyAB darknet, src/yolo_layer.c,
/// src/region_layer.c, src/detection_layer.c, src/cost_layer.c):
///
/// - `[yolo]` (`forward_yolo_layer`): per anchor slot n, channels n * (5 + classes) + k:
///   x, y (k = 0, 1): logistic, then x * scale_x_y - 0.5 * (scale_x_y - 1); w, h (k = 2, 3): raw;
///   objectness and classes (k >= 4): logistic. With `new_coords=1` nothing is activated (the
///   convolution before already is), x and y are still scaled.
/// - `[region]` (`forward_region_layer`): the tensor flattened location-first (darknet's `flatten`:
///   out[loc * C + c] = in[c * H * W + loc], the NHWC order), then per box (loc * num + n, entries of
///   coords + classes + 1): entry 4 (objectness) logistic, and with `softmax=1` entries 5 ..< 5 + classes
///   through softmax; x, y, w, h stay raw (darknet activates them when it decodes boxes). With a class
///   tree (`tree=`, YOLO9000) the classes go through a softmax per sibling group instead
///   (`softmax_tree`; `ClassTree.groups`), whatever `softmax` says.
/// - `[detection]` (`forward_detection_layer` on the CPU): the input copied, then with `softmax=1` the
///   `classes` values of each of the side*side locations (the first side*side*classes values) through
///   softmax; everything else as the input (with `softmax=0` the whole buffer equals the input: `differs`
///   is false).
///   (darknet's GPU path, `forward_detection_layer_gpu`, only copies the input at inference.)
/// - `[Gaussian_yolo]` (`forward_gaussian_yolo_layer`): per anchor slot, channels
///   n * (9 + classes) + k: x, its uncertainty, y, its uncertainty (k = 0 ... 3) logistic, then x and y
///   (k = 0, 2) scaled as [yolo]'s; w, h (k = 4, 6) raw; their uncertainties (k = 5, 7), objectness and
///   classes (k >= 8) logistic.
/// - `[cost]` (`forward_cost_layer` without truth) and `[contrastive]` (`forward_contrastive_layer`
///   returns when not training): their buffers are never written: zeros.
///
/// Computed from the float32 values FoldKit stores, in float64, rounded once to float32.
public enum DarknetLayerOutput {
    /// How the transformed values are ordered.
    public enum Order: String, Sendable, Codable {
        /// Channel-major, as the layer's own output.
        case channelMajor = "nchw"
        /// Location-first (NHWC), as darknet's [region] buffer.
        case locationFirst = "nhwc"
    }

    /// Whether darknet's buffer for `layer` differs from FoldKit's output (heads, except a [detection]
    /// head with softmax=0, and [cost] and [contrastive]).
    public static func differs(_ layer: Layer) -> Bool {
        switch layer.kind {
        case .detection(let head): return head.kind != .detection || head.softmax
        case .identity(let reason): return reason == "cost" || reason == "contrastive"
        default: return false
        }
    }

    /// The order of darknet's buffer for `layer` (location-first for a [region] head).
    public static func order(of layer: Layer) -> Order {
        if case .detection(let head) = layer.kind, head.kind == .region { return .locationFirst }
        return .channelMajor
    }

    /// darknet's buffer for `layer` from FoldKit's channel-major output `values`, or nil when they are
    /// the same (`differs` false).
    public static func transform(_ layer: Layer, values: [Float]) -> (values: [Float], order: Order)? {
        let shape = layer.outputShape
        switch layer.kind {
        case .identity(let reason) where reason == "cost" || reason == "contrastive":
            return ([Float](repeating: 0, count: values.count), .channelMajor)
        case .detection(let head) where head.kind == .yolo:
            return (yolo(head, values: values, plane: shape.planeSize), .channelMajor)
        case .detection(let head) where head.kind == .gaussianYolo:
            return (gaussianYolo(head, values: values, plane: shape.planeSize), .channelMajor)
        case .detection(let head) where head.kind == .detection:
            return head.softmax ? (detection(head, values: values), .channelMajor) : nil
        case .detection(let head):
            return (region(head, values: values, shape: shape), .locationFirst)
        default:
            return nil
        }
    }

    private static func logistic(_ x: Float) -> Float { Float(1 / (1 + exp(-Double(x)))) }

    /// Softmax of `values[run]` in place, in float64 (the maximum subtracted first), as darknet's
    /// `softmax` with temperature 1.
    private static func softmax(_ values: inout [Float], _ run: Range<Int>) {
        let largest = run.map { Double(values[$0]) }.max() ?? 0
        let exps = run.map { exp(Double(values[$0]) - largest) }
        let sum = exps.reduce(0, +)
        for (k, i) in run.enumerated() { values[i] = Float(exps[k] / sum) }
    }

    private static func yolo(_ head: DetectionHead, values: [Float], plane: Int) -> [Float] {
        var out = values
        let entries = 5 + head.classes
        let scale = Double(head.scaleXY), shift = -0.5 * (Double(head.scaleXY) - 1)
        for slot in 0..<head.mask.count {
            let base = slot * entries * plane
            guard base + entries * plane <= out.count else { break }
            if !head.newCoords {
                for i in base..<(base + 2 * plane) { out[i] = logistic(out[i]) }
                for i in (base + 4 * plane)..<(base + entries * plane) { out[i] = logistic(out[i]) }
            }
            for i in base..<(base + 2 * plane) { out[i] = Float(Double(out[i]) * scale + shift) }
        }
        return out
    }

    private static func gaussianYolo(_ head: DetectionHead, values: [Float], plane: Int) -> [Float] {
        var out = values
        let entries = head.entriesPerAnchor
        let scale = Double(head.scaleXY), shift = -0.5 * (Double(head.scaleXY) - 1)
        for slot in 0..<head.mask.count {
            let base = slot * entries * plane
            guard base + entries * plane <= out.count else { break }
            for entry in [0, 1, 2, 3, 5, 7] + Array(8..<entries) {
                for i in (base + entry * plane)..<(base + (entry + 1) * plane) { out[i] = logistic(out[i]) }
            }
            for entry in [0, 2] {
                for i in (base + entry * plane)..<(base + (entry + 1) * plane) { out[i] = Float(Double(out[i]) * scale + shift) }
            }
        }
        return out
    }

    private static func detection(_ head: DetectionHead, values: [Float]) -> [Float] {
        var out = values
        let classes = head.classes
        for location in 0..<(head.side * head.side) {
            let run = (location * classes)..<((location + 1) * classes)
            guard run.upperBound <= out.count else { break }
            softmax(&out, run)
        }
        return out
    }

    private static func region(_ head: DetectionHead, values: [Float], shape: ActivationShape) -> [Float] {
        let plane = shape.planeSize, channels = shape.channels
        var out = [Float](repeating: 0, count: values.count)
        for c in 0..<channels {
            for loc in 0..<plane { out[loc * channels + c] = values[c * plane + loc] }
        }
        let size = head.coords + head.classes + 1
        let boxes = plane * head.mask.count
        let treeGroups = head.tree?.groups
        for box in 0..<boxes {
            let index = size * box
            guard index + 5 + head.classes <= out.count else { break }
            out[index + 4] = logistic(out[index + 4])
            if let groups = treeGroups {
                for group in groups where group.upperBound <= head.classes {
                    softmax(&out, (index + 5 + group.lowerBound)..<(index + 5 + group.upperBound))
                }
            } else if head.softmax {
                softmax(&out, (index + 5)..<(index + 5 + head.classes))
            }
        }
        return out
    }
}
