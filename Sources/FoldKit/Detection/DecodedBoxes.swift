import FoldKitDetection

/// The boxes of every detection head of one network before NMS, with the channels that made some of
/// them non-finite.
struct DecodedBoxes: Sendable {
    var boxes: [Detection]
    var overflows: [BoxOverflowHazard]

    init(boxes: [Detection], overflows: [BoxOverflowHazard] = []) {
        self.boxes = boxes
        self.overflows = overflows
    }
}
