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

extension Reorg {
    /// darknet's [reorg] (`reorg_cpu(..., forward=0)`) as space to depth: its C x H x W input, read in
    /// its own memory order as C/s² x (H·s) x (W·s) (the shape returned), then rearranged as [reorg3d] and
    /// tf.space_to_depth do (out[(dy*s + dx)*C' + c, y, x] = in[c, y*s + dy, x*s + dx]), gives darknet's
    /// output in its memory order - the permutation (c2, j, dy, i, dx) -> (dy, dx, c2, j, i) of the flat
    /// input that the onnx writer spells as one Transpose. nil when C is not a multiple of s².
    public func darknetReinterpretedInput(_ input: ActivationShape) -> ActivationShape? {
        let s = stride
        guard s >= 1, input.channels % (s * s) == 0 else { return nil }
        return ActivationShape(channels: input.channels / (s * s), height: input.height * s, width: input.width * s)
    }
}
