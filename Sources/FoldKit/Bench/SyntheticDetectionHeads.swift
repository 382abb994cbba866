import FoldKitCore
import FoldKitDetection
import Foundation

/// A YOLOv3-style set of raw head tensors for timing and testing the detection decoder on a realistic
/// frame: three [yolo] heads at strides 32, 16 and 8 with 3 anchors each (YOLOv3's anchors and masks),
/// `classes` scores per box, most objectness logits low, and a few planted objects.
///
/// Per box the head holds tx, ty, tw, th, objectness and the class logits (channel a*(5+K) + field,
/// row-major over the grid). Background: tx, ty in [-2, 2], tw, th in [-1, 1], objectness logit in
/// [-12, -4] (probability below 0.018), class logits in [-10, -2]. Each planted object sets, at its
/// cell and anchor, objectness and its class logit to +4 with tx = ty = 2 and tw = th = 0, and plants a
/// weaker duplicate (objectness logit +1, same class logit, tx = -2) in the next column of the same
/// anchor, whose box overlaps the object's by far more than a 0.45 IoU, so NMS must drop it.
package struct SyntheticDetectionHeads {
    package struct Head {
        package var head: DetectionHead
        package var shape: ActivationShape
        package var values: [Float]
    }

    /// One planted object: head number, grid row and column, the anchor's slot in the head's mask, class.
    package struct Object: Equatable {
        package var head: Int
        package var row: Int
        package var column: Int
        package var slot: Int
        package var classIndex: Int
    }

    package var heads: [Head]
    package var networkInput: ActivationShape
    package var objects: [Object]

    /// YOLOv3's anchors in pixels.
    package static let yoloV3Anchors: [Float] = [10, 13, 16, 30, 33, 23, 30, 61, 62, 45, 59, 119, 116, 90, 156, 198, 373, 326]

    /// The heads of a `classes`-class YOLOv3 at `inputSize` x `inputSize` (a multiple of 32), with
    /// `objectCount` objects planted on separate cells (each head gets every third object).
    package static func yoloV3(classes: Int = 417, inputSize: Int = 288, objectCount: Int = 12, seed: UInt64 = 1) -> SyntheticDetectionHeads {
        var random = SplitMix64(seed: seed)
        let masks = [[6, 7, 8], [3, 4, 5], [0, 1, 2]]
        let strides = [32, 16, 8]
        let fields = 5 + classes
        var heads: [Head] = []
        for (mask, stride) in zip(masks, strides) {
            let grid = inputSize / stride
            let shape = ActivationShape(channels: mask.count * fields, height: grid, width: grid)
            let plane = grid * grid
            var values = [Float](repeating: 0, count: shape.count)
            for slot in 0..<mask.count {
                let base = slot * fields * plane
                for cell in 0..<plane {
                    values[base + cell] = random.nextFloat(in: -2, 2)
                    values[base + plane + cell] = random.nextFloat(in: -2, 2)
                    values[base + 2 * plane + cell] = random.nextFloat(in: -1, 1)
                    values[base + 3 * plane + cell] = random.nextFloat(in: -1, 1)
                    values[base + 4 * plane + cell] = random.nextFloat(in: -12, -4)
                }
                for k in 0..<classes {
                    let start = base + (5 + k) * plane
                    for cell in 0..<plane { values[start + cell] = random.nextFloat(in: -10, -2) }
                }
            }
            heads.append(Head(head: DetectionHead(kind: .yolo, classes: classes, anchors: yoloV3Anchors, mask: mask), shape: shape, values: values))
        }
        var objects: [Object] = []
        for n in 0..<objectCount {
            let h = n % heads.count
            let grid = heads[h].shape.width
            // Spread objects over the grid: rows step by 2, columns by 3, never in the last column
            // (the duplicate goes one column to the right).
            let index = n / heads.count
            let row = (1 + 2 * index) % grid
            let column = (3 * index) % max(grid - 1, 1)
            let object = Object(head: h, row: row, column: column, slot: n % 3, classIndex: (37 * n + 5) % classes)
            objects.append(object)
            let plane = grid * grid
            let base = object.slot * fields * plane
            for (cell, objectness, tx) in [(row * grid + column, Float(4), Float(2)), (row * grid + column + 1, Float(1), Float(-2))] {
                heads[h].values[base + cell] = tx
                heads[h].values[base + plane + cell] = 2
                heads[h].values[base + 2 * plane + cell] = 0
                heads[h].values[base + 3 * plane + cell] = 0
                heads[h].values[base + 4 * plane + cell] = objectness
                heads[h].values[base + (5 + object.classIndex) * plane + cell] = 4
            }
        }
        return SyntheticDetectionHeads(
            heads: heads, networkInput: ActivationShape(channels: 3, height: inputSize, width: inputSize), objects: objects)
    }

    /// Candidate boxes: every head decoded with `DetectionDecoder.decode` (before NMS).
    package func candidates(threshold: Float) -> [Detection] {
        var all: [Detection] = []
        for (index, head) in heads.enumerated() {
            head.values.withUnsafeBufferPointer { buffer in
                all += DetectionDecoder.decode(
                    head: head.head, headIndex: index, output: buffer, shape: head.shape,
                    networkInput: networkInput, threshold: threshold)
            }
        }
        return all
    }

    /// Decoding plus `DetectionDecoder.nonMaxSuppression`: what an app does per frame.
    package func detect(threshold: Float, iouThreshold: Float) -> [Detection] {
        DetectionDecoder.nonMaxSuppression(candidates(threshold: threshold), iouThreshold: iouThreshold)
    }

    /// Number of candidate boxes (cells x anchors) over all heads.
    package var boxCount: Int { heads.reduce(0) { $0 + $1.shape.height * $1.shape.width * $1.head.mask.count } }
}
