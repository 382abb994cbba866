/// Channel concatenation of all inputs in order (Darknet [route], Keras Concatenate on the channel axis).
/// With `groups > 1`, each input contributes only its channels [groupID*C/groups, (groupID+1)*C/groups).
public struct Concatenation: Sendable, Hashable {
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
