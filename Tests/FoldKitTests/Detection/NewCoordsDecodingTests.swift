import XCTest

@testable import FoldKit

/// [yolo] with new_coords=1 (Scaled-YOLOv4, YOLOv7), decoded as AlexeyAB darknet does: forward_yolo_layer
/// applies no logistic, only x' = scale_x_y * tx - (scale_x_y - 1) / 2 to x and y (scal_add_cpu), and
/// get_yolo_box then gives x = (i + x') / lw, w = tw * tw * 4 * anchorW / netW; objectness and class
/// scores are used as they are. Expected values are computed by hand below.
final class NewCoordsDecodingTests: XCTestCase {
    /// 2 anchors (mask 1, 2 of three) x (4 + 1 + 2 classes) channels on a 2 x 3 grid; only cell (row 1,
    /// column 2) of the second anchor (37 x 58 pixels) holds a box; another cell has objectness exactly
    /// at the threshold.
    private func decode(scaleXY: Float) -> [Detection] {
        let head = DetectionHead(kind: .yolo, classes: 2, anchors: [10, 14, 23, 27, 37, 58], mask: [1, 2], scaleXY: scaleXY, newCoords: true)
        let shape = ActivationShape(channels: 14, height: 2, width: 3)
        var output = [Float](repeating: 0, count: shape.count)
        let plane = 6, slot = 1, cell = 1 * 3 + 2
        let values: [Float] = [0.7, 0.2, 0.6, 0.3, 0.9, 0.5, 0.8]  // tx, ty, tw, th, objectness, class 0, class 1
        for (k, v) in values.enumerated() { output[(slot * 7 + k) * plane + cell] = v }
        output[(0 * 7 + 4) * plane + 0] = 0.3  // anchor slot 0, cell 0: objectness == threshold, not kept
        output[(0 * 7 + 5) * plane + 0] = 1
        return output.withUnsafeBufferPointer {
            DetectionDecoder.decode(
                head: head, output: $0, shape: shape, networkInput: ActivationShape(channels: 3, height: 64, width: 96), threshold: 0.3)
        }
    }

    func testScaleXY2() {
        let boxes = decode(scaleXY: 2).sorted { $0.classIndex < $1.classIndex }
        XCTAssertEqual(boxes.count, 2, "\(boxes)")
        guard boxes.count == 2 else { return }
        for box in boxes {
            XCTAssertEqual(box.anchor, 2)
            XCTAssertEqual(box.cell, 5)
            XCTAssertEqual(box.objectness, 0.9, accuracy: 1e-7, "no logistic on objectness")
            XCTAssertEqual(box.x, (2 + (2 * 0.7 - 0.5)) / 3, accuracy: 1e-6)  // 0.966667
            XCTAssertEqual(box.y, (1 + (2 * 0.2 - 0.5)) / 2, accuracy: 1e-6)  // 0.45
            XCTAssertEqual(box.width, 0.6 * 0.6 * 4 * 37 / 96, accuracy: 1e-6)  // 0.555
            XCTAssertEqual(box.height, 0.3 * 0.3 * 4 * 58 / 64, accuracy: 1e-6)  // 0.32625
        }
        XCTAssertEqual(boxes[0].score, 0.9 * 0.5, accuracy: 1e-6, "no logistic on class scores")
        XCTAssertEqual(boxes[1].score, 0.9 * 0.8, accuracy: 1e-6)
    }

    /// scale_x_y = 1 (the default when a cfg does not set it): x' = tx.
    func testScaleXY1() {
        let boxes = decode(scaleXY: 1)
        XCTAssertEqual(boxes.count, 2)
        for box in boxes {
            XCTAssertEqual(box.x, (2 + 0.7) / 3, accuracy: 1e-6)
            XCTAssertEqual(box.y, (1 + 0.2) / 2, accuracy: 1e-6)
            XCTAssertEqual(box.width, 0.555, accuracy: 1e-6)
        }
    }

    /// scale_x_y = 1.05 (YOLOv4's value): x' = 1.05 tx - 0.025.
    func testScaleXY105() {
        let boxes = decode(scaleXY: 1.05)
        XCTAssertEqual(boxes.count, 2)
        for box in boxes {
            XCTAssertEqual(box.x, (2 + 1.05 * 0.7 - 0.025) / 3, accuracy: 1e-6)
            XCTAssertEqual(box.y, (1 + 1.05 * 0.2 - 0.025) / 2, accuracy: 1e-6)
        }
    }
}
