import FoldKitBlobFormat
import FoldKitCore

/// The manifest's description of a network layer (`layers[]`, Docs/BlobFormat.md "manifest.json").
extension BlobLayer {
    /// Describes `layer` of `network` (before folding, so `foldedBatchNorm` can be told).
    public init(_ layer: Layer, in network: Network) {
        self.init(
            index: layer.index, name: layer.name, type: network.typeName(of: layer), inputs: layer.inputs,
            outputShape: [layer.outputShape.channels, layer.outputShape.height, layer.outputShape.width])
        switch layer.kind {
        case .convolution(let c):
            kernel = [c.kernelHeight, c.kernelWidth]
            stride = [c.strideY, c.strideX]
            dilation = [c.dilationY, c.dilationX]
            padding = [c.padding.top, c.padding.left, c.padding.bottom, c.padding.right]
            groups = c.groups
            activation = c.activation.name
            foldedBatchNorm = c.batchNorm != nil
        case .transposedConvolution(let t):
            kernel = [t.kernelHeight, t.kernelWidth]
            stride = [t.strideY, t.strideX]
            outputOffset = [t.offsetY, t.offsetX]
            activation = t.activation.name
            foldedBatchNorm = false
        case .fullyConnected(let f):
            activation = f.activation.name
            foldedBatchNorm = f.batchNorm != nil
        case .locallyConnected(let l):
            kernel = [l.kernelSize, l.kernelSize]
            stride = [l.stride, l.stride]
            // Zero cells before the first row and column; reads past the last ones are zero too.
            padding = [l.padding, l.padding, l.padding, l.padding]
            activation = l.activation.name
            foldedBatchNorm = false
        case .pooling(let p):
            kernel = [p.kernelHeight, p.kernelWidth]
            stride = [p.strideY, p.strideX]
            padding = [p.padding.top, p.padding.left, p.padding.bottom, p.padding.right]
            if p.countIncludesPadding { countIncludesPadding = true }
        case .concatenation(let c) where c.groups > 1:
            routeGroups = [c.groups, c.groupID]
        case .upsample(let u):
            stride = [u.strideY, u.strideX]
            if u.scale != 1 { scale = Double(u.scale) }
        case .identity:
            passThrough = true
        case .sum(let s):
            activation = s.activation.name
        case .activation(let a):
            activation = a.name
        case .channelRange(let r):
            channelOffset = r.offset
        case .layerNormalization(let n):
            epsilon = n.epsilon
        default:
            break
        }
    }
}
