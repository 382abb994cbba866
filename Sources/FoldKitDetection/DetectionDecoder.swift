import FoldKitCore
import Foundation

/// Decodes raw YOLO head tensors into boxes, the way Darknet's `get_detection_detections` /
/// `get_region_detections` / `get_yolo_detections` do, then per-class non-max suppression.
///
/// [detection] (YOLOv1, darknet's src/detection_layer.c) reads the flat vector (`DetectionHead`): for grid
/// cell i (row i / side, column i % side) and box n, with p = side*side*classes + i*num + n the box's
/// confidence `scale` and b = side*side*(classes + num) + (i*num + n)*4 its values:
///   x = (b0 + column) / side,  y = (b1 + row) / side,  w = b2^2, h = b3^2 (sqrt=1; else b2, b3),
///   score(class k) = scale * class_k of cell i (softmax=1: softmax over the cell's classes, as
///   `forward_detection_layer` applies it), kept when it exceeds `threshold`. Every class of every box is
///   tested, as darknet does (a negative confidence times a negative class value can pass).
///
/// The head's C x H x W tensor holds, for anchor a, channels a*(5+K) ..< (a+1)*(5+K):
/// tx, ty, tw, th, objectness, K class scores. For cell (row i, column j) of an H x W grid:
/// - [yolo]:   x = (j + sxy*sigmoid(tx) - (sxy-1)/2) / W,  w = exp(tw) * anchorW / netW,  obj = sigmoid(to),
///             p(class k) = sigmoid(score_k)   (new_coords=1: the inputs are already activated:
///             x = (j + sxy*tx - (sxy-1)/2) / W,  w = (2*tw)^2 * anchorW / netW,  obj = to, p = score;
///             darknet's forward_yolo_layer scales x, y by scale_x_y in both cases, then get_yolo_box)
/// - [region]: x = (j + sigmoid(tx)) / W,  w = exp(tw) * anchorW / W (anchors in grid cells),
///             obj = sigmoid(to), p = softmax(scores)
///             With a class tree (YOLO9000, darknet's `get_region_boxes` with `softmax_tree`): a softmax
///             per sibling group, multiplied down the tree (`ClassTree`); then, from the last class back,
///             the first with p > 0.5 is the box's only class, its score p itself (not obj * p), kept when
///             obj and p both exceed `threshold`
/// - [Gaussian_yolo] (darknet's get_gaussian_yolo_detections): 9 + K channels per anchor, tx, sx, ty, sy,
///             tw, sw, th, sh, to, K scores; x, y, w, h as [yolo]; p(class k) = sigmoid(score_k) *
///             (1 - (sigmoid(sx) + sigmoid(sy) + sigmoid(sw) + sigmoid(sh)) / 4), the uncertainties'
///             mean discounting the score
/// The detection score is obj * p(class); a box is kept for every class whose score exceeds `threshold`.
/// Objectness is tested first, so class scores of empty cells are never touched (fast for many classes).
public enum DetectionDecoder {
    /// The boxes of one head's output tensor (channel-major `channels` x `height` x `width` float32, as the
    /// head's layer produced it) whose score exceeds `threshold`, before NMS, for a network input of
    /// `inputWidth` x `inputHeight` pixels. `headIndex` is recorded in each box.
    public static func decode(
        head: DetectionHead, headIndex: Int = 0, output: UnsafeBufferPointer<Float>, channels: Int, height: Int, width: Int,
        inputWidth: Int, inputHeight: Int, threshold: Float
    ) -> [Detection] {
        var overflows: [Int: (value: Float, boxes: Int)] = [:]
        return decode(
            head: head, headIndex: headIndex, output: output, channels: channels, height: height, width: width,
            inputWidth: inputWidth, inputHeight: inputHeight, threshold: threshold, overflows: &overflows)
    }

    /// As `decode(head:...)`, also recording for every box above the threshold with a non-finite centre or
    /// side the responsible channel (tx, ty, tw or th of its anchor): the value of largest magnitude and
    /// the number of boxes, by channel.
    package static func decode(
        head: DetectionHead, headIndex: Int, output: UnsafeBufferPointer<Float>, channels: Int, height: Int, width: Int, inputWidth: Int,
        inputHeight: Int, threshold: Float, overflows: inout [Int: (value: Float, boxes: Int)]
    ) -> [Detection] {
        let shape = (channels: channels, height: height, width: width)
        if head.kind == .detection {
            return decodeDetection(head: head, headIndex: headIndex, output: output, threshold: threshold, overflows: &overflows)
        }
        let classes = head.classes
        let stride = head.entriesPerAnchor
        let gaussian = head.kind == .gaussianYolo
        // The channel of tx, ty, tw, th, objectness and the first class within an anchor's entries.
        let entry = gaussian ? [0, 2, 4, 6, 8, 9] : [0, 1, 2, 3, 4, 5]
        let anchors = head.kind == .region ? Array(0..<max(head.mask.count, shape.channels / stride)) : head.mask
        let plane = shape.height * shape.width
        guard shape.channels >= anchors.count * stride else { return [] }
        var detections: [Detection] = []
        var probabilities = [Float](repeating: 0, count: classes)
        let treeGroups = head.tree?.groups ?? []
        for (slot, anchor) in anchors.enumerated() {
            guard 2 * anchor + 1 < head.anchors.count else { continue }
            let anchorW = head.anchors[2 * anchor], anchorH = head.anchors[2 * anchor + 1]
            let base = slot * stride * plane
            for cell in 0..<plane {
                let row = cell / shape.width, column = cell % shape.width
                let rawObjectness = output[base + entry[4] * plane + cell]
                let objectness = head.newCoords ? rawObjectness : sigmoid(rawObjectness)
                if objectness <= threshold { continue }
                let tx = output[base + entry[0] * plane + cell], ty = output[base + entry[1] * plane + cell]
                let tw = output[base + entry[2] * plane + cell], th = output[base + entry[3] * plane + cell]
                let (x, y, w, h) = boxGeometry(
                    head, t: (tx, ty, tw, th), column: column, row: row, grid: (shape.width, shape.height), anchor: (anchorW, anchorH),
                    input: (inputWidth, inputHeight))
                var nonFinite: [Int] = []
                if !(x.isFinite && y.isFinite && w.isFinite && h.isFinite) {
                    for (k, v) in [x, y, w, h].enumerated() where !v.isFinite { nonFinite.append(k) }
                }
                let scoreBase = base + entry[5] * plane + cell
                // [Gaussian_yolo]: 1 - the mean of the four coordinates' uncertainties.
                var certainty: Float = 1
                if gaussian {
                    let sum = [1, 3, 5, 7].reduce(Float(0)) { $0 + sigmoid(output[base + $1 * plane + cell]) }
                    certainty = 1 - sum / 4
                }
                if head.kind == .region, let tree = head.tree {
                    if let chosen = treeClass(
                        tree, groups: treeGroups, output: output, first: scoreBase, step: plane, classes: classes, into: &probabilities),
                        probabilities[chosen] > threshold
                    {
                        recordOverflows(
                            nonFinite, slot: slot, stride: stride, entry: entry, base: base, plane: plane, cell: cell, output: output,
                            into: &overflows)
                        detections.append(
                            Detection(
                                classIndex: chosen, score: probabilities[chosen], objectness: objectness, x: x, y: y, width: w, height: h,
                                head: headIndex, cell: cell, anchor: anchor))
                    }
                    continue
                }
                classProbabilities(head, output: output, first: scoreBase, step: plane, certainty: certainty, into: &probabilities)
                for k in 0..<classes {
                    let score = objectness * probabilities[k]
                    if score > threshold {
                        recordOverflows(
                            nonFinite, slot: slot, stride: stride, entry: entry, base: base, plane: plane, cell: cell, output: output,
                            into: &overflows)
                        detections.append(
                            Detection(
                                classIndex: k, score: score, objectness: objectness, x: x, y: y, width: w, height: h,
                                head: headIndex, cell: cell, anchor: anchor))
                    }
                }
            }
        }
        return detections
    }

    /// A box's centre and sides as fractions of the input, from its raw tx, ty, tw, th in cell (`column`,
    /// `row`) of a `grid` of cells, with its anchor's sides (pixels for [yolo], cells for [region]):
    /// - [yolo] with new_coords: x = (column + tx s - (s - 1) / 2) / grid width, w = (2 tw)^2 anchor / input;
    /// - [yolo], [Gaussian_yolo]: x = (column + sigmoid(tx) s - (s - 1) / 2) / grid width, w = exp(tw) anchor / input;
    /// - [region], [detection]: x = (column + sigmoid(tx)) / grid width, w = exp(tw) anchor / grid width;
    /// with s = scale_x_y, and y, h alike (darknet's get_yolo_box and get_region_box).
    private static func boxGeometry(
        _ head: DetectionHead, t: (x: Float, y: Float, w: Float, h: Float), column: Int, row: Int, grid: (width: Int, height: Int),
        anchor: (width: Float, height: Float), input: (width: Int, height: Int)
    ) -> (x: Float, y: Float, w: Float, h: Float) {
        let s = head.scaleXY
        switch head.kind {
        case .yolo where head.newCoords:
            return (
                (Float(column) + t.x * s - (s - 1) / 2) / Float(grid.width), (Float(row) + t.y * s - (s - 1) / 2) / Float(grid.height),
                (t.w * 2) * (t.w * 2) * anchor.width / Float(input.width), (t.h * 2) * (t.h * 2) * anchor.height / Float(input.height)
            )
        case .yolo, .gaussianYolo:
            return (
                (Float(column) + sigmoid(t.x) * s - (s - 1) / 2) / Float(grid.width),
                (Float(row) + sigmoid(t.y) * s - (s - 1) / 2) / Float(grid.height),
                exp(t.w) * anchor.width / Float(input.width), exp(t.h) * anchor.height / Float(input.height)
            )
        case .region, .detection:
            return (
                (Float(column) + sigmoid(t.x)) / Float(grid.width), (Float(row) + sigmoid(t.y)) / Float(grid.height),
                exp(t.w) * anchor.width / Float(grid.width), exp(t.h) * anchor.height / Float(grid.height)
            )
        }
    }

    /// Each class's probability of one anchor in one cell (classes at `first`, `first + step`, ...): a softmax
    /// over them for [region] softmax=1 (largest subtracted first), else the raw value ([region], new_coords)
    /// or its sigmoid, times `certainty` ([Gaussian_yolo]'s, 1 elsewhere).
    private static func classProbabilities(
        _ head: DetectionHead, output: UnsafeBufferPointer<Float>, first: Int, step: Int, certainty: Float, into probabilities: inout [Float]
    ) {
        let classes = head.classes
        if head.kind == .region && head.softmax {
            var largest = -Float.infinity
            for k in 0..<classes { largest = max(largest, output[first + k * step]) }
            var sum: Float = 0
            for k in 0..<classes {
                let e = exp(output[first + k * step] - largest)
                probabilities[k] = e
                sum += e
            }
            for k in 0..<classes { probabilities[k] /= sum }
        } else {
            for k in 0..<classes {
                let raw = output[first + k * step]
                probabilities[k] = ((head.newCoords || head.kind == .region) ? raw : sigmoid(raw)) * certainty
            }
        }
    }

    /// Per-class greedy non-max suppression: boxes sorted by descending score (ties: class, head, cell,
    /// anchor, then input order); a box is dropped when its IoU with a kept box of the same class exceeds
    /// `iouThreshold`. Returns the kept boxes in that order. Only kept boxes sharing a cell of a 32 x 32
    /// grid with the candidate are compared (boxes with no overlap have IoU 0 and cannot suppress it);
    /// see `GreedyNMS` for the index and the spreading of classes over the cores.
    public static func nonMaxSuppression(_ detections: [Detection], iouThreshold: Float) -> [Detection] {
        GreedyNMS.apply(detections, iouThreshold: iouThreshold)
    }

    /// [detection] (YOLOv1): darknet's `get_detection_detections` on FoldKit's raw vector (the type's
    /// comment has the rules). Non-finite coordinates are recorded by their index in the vector.
    private static func decodeDetection(
        head: DetectionHead, headIndex: Int, output: UnsafeBufferPointer<Float>, threshold: Float,
        overflows: inout [Int: (value: Float, boxes: Int)]
    ) -> [Detection] {
        let side = head.side, classes = head.classes, num = head.mask.count
        let cells = side * side
        guard side > 0, output.count >= cells * (classes + 5 * num) else { return [] }
        var detections: [Detection] = []
        var probabilities = [Float](repeating: 0, count: classes)
        for cell in 0..<cells {
            let row = cell / side, column = cell % side
            let classBase = cell * classes
            if head.softmax {
                var largest = -Float.greatestFiniteMagnitude
                for k in 0..<classes { largest = max(largest, output[classBase + k]) }
                var sum: Float = 0
                for k in 0..<classes {
                    let e = exp(output[classBase + k] - largest)
                    probabilities[k] = e
                    sum += e
                }
                for k in 0..<classes { probabilities[k] /= sum }
            } else {
                for k in 0..<classes { probabilities[k] = output[classBase + k] }
            }
            for n in 0..<num {
                let scale = output[cells * classes + cell * num + n]
                let box = cells * (classes + num) + (cell * num + n) * 4
                let x = (output[box] + Float(column)) / Float(side)
                let y = (output[box + 1] + Float(row)) / Float(side)
                let w = head.squaredSides ? output[box + 2] * output[box + 2] : output[box + 2]
                let h = head.squaredSides ? output[box + 3] * output[box + 3] : output[box + 3]
                var nonFinite: [Int] = []
                for (k, v) in [x, y, w, h].enumerated() where !v.isFinite { nonFinite.append(k) }
                for k in 0..<classes {
                    let score = scale * probabilities[k]
                    guard score > threshold else { continue }
                    for coordinate in nonFinite {
                        let index = box + coordinate, value = output[index]
                        let previous = overflows[index] ?? (0, 0)
                        overflows[index] = (abs(value) > abs(previous.value) || value.isNaN ? value : previous.value, previous.boxes + 1)
                    }
                    detections.append(
                        Detection(
                            classIndex: k, score: score, objectness: scale, x: x, y: y, width: w, height: h, head: headIndex, cell: cell,
                            anchor: n))
                }
            }
        }
        return detections
    }

    /// Records, for a kept box with non-finite coordinates, the channel responsible for each.
    private static func recordOverflows(
        _ nonFinite: [Int], slot: Int, stride: Int, entry: [Int], base: Int, plane: Int, cell: Int, output: UnsafeBufferPointer<Float>,
        into overflows: inout [Int: (value: Float, boxes: Int)]
    ) {
        for coordinate in nonFinite {
            let channel = slot * stride + entry[coordinate], value = output[base + entry[coordinate] * plane + cell]
            let previous = overflows[channel] ?? (0, 0)
            overflows[channel] = (abs(value) > abs(previous.value) || value.isNaN ? value : previous.value, previous.boxes + 1)
        }
    }

    /// A box's class under a class tree (darknet's `get_region_boxes` without a map): the raw scores at
    /// `first + k * step` through a softmax per sibling group, multiplied down the tree into
    /// `probabilities` (`groups`: the tree's `groups`, computed once per head); then the last class whose
    /// probability exceeds 0.5, or nil when none does.
    package static func treeClass(
        _ tree: ClassTree, groups: [Range<Int>], output: UnsafeBufferPointer<Float>, first: Int, step: Int, classes: Int,
        into probabilities: inout [Float]
    ) -> Int? {
        for group in groups where group.upperBound <= classes {
            var largest = -Float.infinity
            for k in group { largest = max(largest, output[first + k * step]) }
            var sum: Float = 0
            for k in group {
                let e = exp(output[first + k * step] - largest)
                probabilities[k] = e
                sum += e
            }
            for k in group { probabilities[k] /= sum }
        }
        tree.multiplyDownTree(&probabilities)
        for k in stride(from: min(classes, tree.count) - 1, through: 0, by: -1) where probabilities[k] > ClassTree.decisionProbability {
            return k
        }
        return nil
    }

    @inline(__always)
    package static func sigmoid(_ x: Float) -> Float { 1 / (1 + exp(-x)) }
}
