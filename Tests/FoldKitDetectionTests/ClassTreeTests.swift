import FoldKitCore
import FoldKitDetection
import XCTest

/// `ClassTree`: darknet's softmax groups (runs of one parent) and the product down the tree, including
/// from a damaged manifest (a parent that is not an earlier class reads as a root, never out of bounds).
final class ClassTreeTests: XCTestCase {
    func testGroupsAreRunsOfOneParent() {
        XCTAssertEqual(ClassTree(parents: [-1, -1, 0, 0, 1, 1, 0, 2]).groups, [0..<2, 2..<4, 4..<6, 6..<7, 7..<8])
        XCTAssertEqual(ClassTree(parents: [-1]).groups, [0..<1])
        XCTAssertEqual(ClassTree(parents: []).groups, [])
    }

    func testProbabilitiesMultiplyDownTheTree() {
        var p: [Float] = [0.5, 0.5, 0.25, 0.75, 1]
        ClassTree(parents: [-1, -1, 0, 0, 3]).multiplyDownTree(&p)
        XCTAssertEqual(p, [0.5, 0.5, 0.125, 0.375, 0.375])
    }

    func testParentsThatAreNotEarlierClassesReadAsRoots() {
        var p: [Float] = [0.5, 0.25, 0.5]
        ClassTree(parents: [2, 7, -5]).multiplyDownTree(&p)
        XCTAssertEqual(p, [0.5, 0.25, 0.5])
    }

    /// The decoder's tree path: one box, one class, the last above 0.5, its score p(k) itself.
    func testDecoderKeepsTheDeepestClassAboveOneHalf() {
        // One anchor on a 1 x 1 grid: tx, ty, tw, th, objectness, then 3 classes: a root pair {0, 1} and
        // class 2 under class 0 (its own group: probability 1 given its parent).
        let head = DetectionHead(
            kind: .region, classes: 3, anchors: [1, 1], mask: [0], coords: 4, softmax: true, tree: ClassTree(parents: [-1, -1, 0]))
        let values: [Float] = [0, 0, 0, 0, 4, 2, 0, 0]
        let boxes = values.withUnsafeBufferPointer {
            DetectionDecoder.decode(head: head, output: $0, channels: 8, height: 1, width: 1, inputWidth: 32, inputHeight: 32, threshold: 0.3)
        }
        let expected = Float(exp(2.0) / (exp(2.0) + 1))
        XCTAssertEqual(boxes.count, 1)
        XCTAssertEqual(boxes.first?.classIndex, 2)
        XCTAssertEqual(boxes.first?.score ?? 0, expected, accuracy: 1e-6)
    }
}
