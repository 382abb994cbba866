import FoldKitCore

/// darknet's own output buffer for the layers where it differs from FoldKit's output (`export
/// --decode-heads`): FoldKit's network passes a head's input through, darknet's forward functions
/// activate it in place (AlexeyAB darknet, src/yolo_layer.c, src/gaussian_yolo_layer.c,
/// src/region_layer.c, src/detection_layer.c, src/cost_layer.c). The graph computes what a fixture pack's
/// head file holds (Docs/Fixtures.md, "Detection heads and [cost]: what darknet's layer holds"; Docs/Export.md,
/// "Decoded heads"):
///
/// - [yolo]: per anchor slot n < mask count, channels n * (5 + classes) + k: x, y (k = 0, 1) logistic, then
///   `x * scale_x_y - 0.5 * (scale_x_y - 1)`; w, h raw; objectness and classes logistic. With
///   `new_coords=1` nothing is activated, x and y still scaled. `Sigmoid`, then per channel `Where`.
/// - [Gaussian_yolo]: per anchor slot, channels n * (9 + classes) + k: k = 0, 1, 2, 3, 5, 7 and 8 on
///   logistic, k = 0 and 2 then scaled as [yolo]'s; w, h (k = 4, 6) raw.
/// - [region]: the tensor location-first (`Transpose` to [1, H, W, C]), each location's C = num x (coords +
///   classes + 1) values as num boxes: entry 4 logistic, entries 5 ..< 5 + classes through `Softmax`
///   (softmax=1), or one `Softmax` per sibling group of a class tree (runs of equal-sized groups share one
///   `Softmax` on a [.., groups, size] view); everything else raw. Output [1, H, W, C].
/// - [detection] softmax=1: the first side x side x classes values as side x side rows of `classes`, each
///   through `Softmax`; the rest as they are.
/// - [cost], [contrastive]: zeros (darknet never writes their buffers at inference).
extension ONNXGraphBuilder {
    /// darknet's buffer for `layer` computed from `x`, FoldKit's output of the layer (the type's rules), and
    /// its dimensions: `[1, C, H, W]`, a [region] head's `[1, H, W, C]`.
    mutating func darknetBuffer(of layer: Layer, input x: String) throws -> (name: String, dims: [Int]) {
        let shape = layer.outputShape
        let dims = ONNXGraphBuilder.dims(shape)
        switch layer.kind {
        case .detection(let head):
            switch head.kind {
            case .yolo, .gaussianYolo: return (anchorSlots(head, input: x, shape: shape), dims)
            case .region: return (try region(head, input: x, shape: shape), [1, shape.height, shape.width, shape.channels])
            case .detection: return (try detectionSoftmax(head, input: x, shape: shape), dims)
            }
        case .identity(let reason) where reason == "cost" || reason == "contrastive":
            // Zeros of x's shape and element type, whatever x holds (x * 0 would turn an infinity into NaN).
            return (node("Where", [node("Equal", [x, x]), scalar(0, hint: "zero"), scalar(0, hint: "zero")]), dims)
        default:
            throw refuse("the layer's darknet buffer is its output; there is nothing to decode")
        }
    }

    /// [yolo] and [Gaussian_yolo]: which channels go through the logistic and which are scaled by
    /// scale_x_y, per the type's rules; channels past the mask's slots stay raw.
    private mutating func anchorSlots(_ head: DetectionHead, input x: String, shape: ActivationShape) -> String {
        let entries = head.entriesPerAnchor
        var logistic = [Float](repeating: 0, count: shape.channels), scaled = logistic
        for slot in 0..<head.mask.count {
            for k in 0..<entries {
                let c = slot * entries + k
                guard c < shape.channels, (slot + 1) * entries <= shape.channels else { continue }
                let entry = head.darknetBufferEntry(k)
                (logistic[c], scaled[c]) = (entry.logistic ? 1 : 0, entry.scaled ? 1 : 0)
            }
        }
        var base = x
        if logistic.contains(1) {
            base = node("Where", [channelMask(logistic), node("Sigmoid", [x]), x])
        }
        guard scaled.contains(1) else { return base }
        let scale = Double(head.scaleXY)
        let shifted = affine(base, scale: Float(scale), shift: Float(-0.5 * (scale - 1)))
        return node("Where", [channelMask(scaled), shifted, base])
    }

    /// A boolean [1, C, 1, 1] condition, true where `mask` is 1.
    private mutating func channelMask(_ mask: [Float]) -> String {
        node("Greater", [floats(mask, dims: [1, mask.count, 1, 1], hint: "mask"), scalar(0.5, hint: "half")])
    }

    /// [region]: the location-first buffer with objectness and class activations (the type's rules).
    private mutating func region(_ head: DetectionHead, input x: String, shape: ActivationShape) throws -> String {
        let num = head.mask.count, size = head.coords + head.classes + 1
        guard num >= 1, shape.channels == num * size, size >= 5 + head.classes else {
            throw refuse("[region] channels \(shape.channels) are not num x (coords + classes + 1) = \(num) x \(size)")
        }
        let (h, w) = (shape.height, shape.width)
        let boxes = reshape(transpose(x, perm: [0, 2, 3, 1]), to: [1, h, w, num, size])
        var pieces = [slice(boxes, axes: [4], starts: [0], ends: [4])]
        pieces.append(node("Sigmoid", [slice(boxes, axes: [4], starts: [4], ends: [5])]))
        if head.classes > 0 {
            let classes = slice(boxes, axes: [4], starts: [5], ends: [5 + head.classes])
            if let tree = head.tree {
                pieces += treeSoftmax(
                    classes, groups: tree.groups.filter { $0.upperBound <= head.classes }, count: head.classes, prefix: [1, h, w, num])
            } else {
                pieces.append(head.softmax ? node("Softmax", [classes], [ONNXAttribute.int("axis", 4)]) : classes)
            }
        }
        if size > 5 + head.classes { pieces.append(slice(boxes, axes: [4], starts: [5 + head.classes], ends: [size])) }
        let joined = node("Concat", pieces, [ONNXAttribute.int("axis", 4)])
        return reshape(joined, to: [1, h, w, shape.channels])
    }

    /// The class values `x` (last axis `count`, leading dims `prefix`) with a softmax over each group, as
    /// pieces along the last axis in order: classes outside every group stay as they are; a run of r
    /// consecutive groups of the same size s is one `Softmax` on a [prefix..., r, s] view.
    private mutating func treeSoftmax(_ x: String, groups: [Range<Int>], count: Int, prefix: [Int]) -> [String] {
        let axis = prefix.count
        var pieces: [String] = []
        var position = 0, g = 0
        while g < groups.count {
            let start = groups[g].lowerBound, size = groups[g].count
            if start > position { pieces.append(slice(x, axes: [axis], starts: [position], ends: [start])) }
            var end = g + 1
            while end < groups.count, groups[end].count == size, groups[end].lowerBound == groups[end - 1].upperBound { end += 1 }
            let run = end - g, stop = start + run * size
            let part = slice(x, axes: [axis], starts: [start], ends: [stop])
            if run == 1 {
                pieces.append(node("Softmax", [part], [ONNXAttribute.int("axis", axis)]))
            } else {
                let grouped = node("Softmax", [reshape(part, to: prefix + [run, size])], [ONNXAttribute.int("axis", axis + 1)])
                pieces.append(reshape(grouped, to: prefix + [run * size]))
            }
            position = stop
            g = end
        }
        if position < count { pieces.append(slice(x, axes: [axis], starts: [position], ends: [count])) }
        return pieces
    }

    /// [detection] (YOLOv1) with softmax=1: the first side x side x classes values through a softmax per
    /// location; the rest raw.
    private mutating func detectionSoftmax(_ head: DetectionHead, input x: String, shape: ActivationShape) throws -> String {
        let total = shape.count, probabilities = head.side * head.side * head.classes
        guard head.softmax else { return node("Identity", [x]) }
        guard head.classes > 0, probabilities <= total else {
            throw refuse("[detection] holds \(total) values, fewer than side x side x classes = \(probabilities)")
        }
        let flat = reshape(x, to: [1, total])
        let rows = reshape(slice(flat, axes: [1], starts: [0], ends: [probabilities]), to: [head.side * head.side, head.classes])
        var pieces = [reshape(node("Softmax", [rows], [ONNXAttribute.int("axis", 1)]), to: [1, probabilities])]
        if probabilities < total { pieces.append(slice(flat, axes: [1], starts: [probabilities], ends: [total])) }
        return reshape(node("Concat", pieces, [ONNXAttribute.int("axis", 1)]), to: ONNXGraphBuilder.dims(shape))
    }
}
