/// Space-to-depth rearrangements. `darknetReorg`: Darknet's [reorg] (its own element order, see
/// darknet's `reorg_cpu` with forward=0); `darknetReorg3d`: [reorg3d]; `spaceToDepth`: tf.space_to_depth
/// (the YAD2K `space_to_depth_x2` Lambda) for channels-last models.
public struct Reorg: Sendable, Hashable, Codable {
    /// Which element order (see above).
    public enum Flavor: String, Sendable, Codable { case darknetReorg, darknetReorg3d, spaceToDepth }
    /// Block size: each stride x stride block of a channel becomes stride^2 channels.
    public var stride: Int
    /// Which element order.
    public var flavor: Flavor
    /// A reorg of block size `stride`.
    public init(stride: Int, flavor: Flavor) {
        self.stride = stride
        self.flavor = flavor
    }
}

extension Reorg: LayerOperation {
    public var layerKind: LayerKind { .reorg(self) }

    public func typeName(inputShapes: [ActivationShape]) -> String { flavor.rawValue }

    /// C * s * s channels of H / s x W / s; the stride must divide the input's height and width.
    public func outputShape(for inputs: [ActivationShape]) throws -> ActivationShape {
        let first = inputs[0]
        try require(
            stride >= 1 && first.height % stride == 0 && first.width % stride == 0, "reorg stride must divide height and width",
            found: "\(first), stride \(stride)")
        return ActivationShape(channels: first.channels * stride * stride, height: first.height / stride, width: first.width / stride)
    }

    public var deviationCarry: DeviationCarry? { .unchanged }
}
