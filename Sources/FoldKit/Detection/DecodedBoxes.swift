/// The boxes of every detection head of one network before NMS, with the channels that made some of
/// them non-finite.
struct DecodedBoxes: Sendable {
    public var boxes: [Detection]
    public var overflows: [BoxOverflowHazard]

    public init(boxes: [Detection], overflows: [BoxOverflowHazard] = []) {
        self.boxes = boxes
        self.overflows = overflows
    }
}
