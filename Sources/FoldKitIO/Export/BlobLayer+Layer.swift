import FoldKitBlobFormat
import FoldKitCore

/// The manifest's description of a network layer (`layers[]`, Docs/BlobFormat.md "manifest.json").
extension BlobLayer {
    /// Describes `layer` of `network` (before folding, so `foldedBatchNorm` can be told).
    public init(_ layer: Layer, in network: Network) {
        self.init(
            index: layer.index, name: layer.name, type: network.typeName(of: layer), inputs: layer.inputs,
            outputShape: [layer.outputShape.channels, layer.outputShape.height, layer.outputShape.width])
        var description = LayerDescription()
        layer.kind.operation.describe(into: &description)
        kernel = description.kernel
        stride = description.stride
        dilation = description.dilation
        padding = description.padding
        groups = description.groups
        activation = description.activation
        foldedBatchNorm = description.foldedBatchNorm
        outputOffset = description.outputOffset
        countIncludesPadding = description.countIncludesPadding
        routeGroups = description.routeGroups
        scale = description.scale
        passThrough = description.passThrough
        channelOffset = description.channelOffset
        epsilon = description.epsilon
    }
}
