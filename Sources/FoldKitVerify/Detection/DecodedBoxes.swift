import FoldKitDetection

/// The boxes of every detection head of one network before NMS, with the channels that made some of
/// them non-finite.
package struct DecodedBoxes: Sendable {
    package var boxes: [Detection]
    package var overflows: [BoxOverflowHazard]

    package init(boxes: [Detection], overflows: [BoxOverflowHazard] = []) {
        self.boxes = boxes
        self.overflows = overflows
    }
}
