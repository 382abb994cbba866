/// Channel concatenation of all inputs in order (Darknet [route], Keras Concatenate on the channel axis).
/// With `groups > 1`, each input contributes only its channels [groupID*C/groups, (groupID+1)*C/groups).
public struct Concatenation: Sendable, Hashable {
    public var groups: Int
    public var groupID: Int
    public init(groups: Int = 1, groupID: Int = 0) {
        self.groups = groups
        self.groupID = groupID
    }
}
