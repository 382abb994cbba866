/// Space-to-depth rearrangements. `darknetReorg`: Darknet's [reorg] (its own element order, see
/// darknet's `reorg_cpu` with forward=0); `darknetReorg3d`: [reorg3d]; `spaceToDepth`: tf.space_to_depth
/// (the YAD2K `space_to_depth_x2` Lambda) for channels-last models.
public struct Reorg: Sendable, Hashable {
    public enum Flavor: String, Sendable { case darknetReorg, darknetReorg3d, spaceToDepth }
    public var stride: Int
    public var flavor: Flavor
    public init(stride: Int, flavor: Flavor) {
        self.stride = stride
        self.flavor = flavor
    }
}
