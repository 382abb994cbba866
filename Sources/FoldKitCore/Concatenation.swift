/// Channel concatenation of all inputs in order (Darknet [route], Keras Concatenate on the channel axis).
/// With `groups > 1`, each input contributes only its channels [groupID*C/groups, (groupID+1)*C/groups).
public struct Concatenation: Sendable, Hashable, Codable {
    /// How many channel groups each input is split into (1: whole inputs).
    public var groups: Int
    /// Which group of each input is taken (0-based).
    public var groupID: Int
    /// Whole inputs unless `groups` > 1.
    public init(groups: Int = 1, groupID: Int = 0) {
        self.groups = groups
        self.groupID = groupID
    }
}

extension Concatenation: LayerOperation {
    public var layerKind: LayerKind { .concatenation(self) }

    public func typeName(inputShapes: [ActivationShape]) -> String { "route" }

    /// The sum of the inputs' channel ranges (each C / groups) at their common size.
    public func outputShape(for inputs: [ActivationShape]) throws -> ActivationShape {
        let first = inputs[0]
        try require(
            groups >= 1 && groupID >= 0 && groupID < groups, "route group_id must be in 0..<groups", found: "groups=\(groups) group_id=\(groupID)")
        var channels = 0
        for shape in inputs {
            try require(
                shape.height == first.height && shape.width == first.width, "route inputs differ in size", expected: "\(first.height)x\(first.width)",
                found: "\(shape.height)x\(shape.width)")
            try require(shape.channels % groups == 0, "route groups must divide channels", found: "\(shape.channels) channels, groups=\(groups)")
            channels += shape.channels / groups
        }
        return ActivationShape(channels: channels, height: first.height, width: first.width)
    }

    public func describe(into description: inout LayerDescription) {
        if groups > 1 { description.routeGroups = [groups, groupID] }
    }

    public var deviationCarry: DeviationCarry? { .unchanged }

    public var vectorRule: VectorRule { .whenInputsAre }
}

extension Concatenation {
    /// The channels of an input of `inputChannels` that go into the concatenation:
    /// [groupID * C/groups, (groupID + 1) * C/groups).
    public func takenChannels(of inputChannels: Int) -> Range<Int> {
        let size = inputChannels / groups
        return (groupID * size)..<((groupID + 1) * size)
    }
}
