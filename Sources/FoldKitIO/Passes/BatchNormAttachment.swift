import FoldKitCore

/// Decides which stand-alone batch norms belong to the layer before them, for every format, and
/// attaches them there (`Convolution.batchNorm` / `FullyConnected.batchNorm`), so that `FoldBatchNorm`
/// folds them into the weights instead of writing a separate scale/shift.
///
/// A `.batchNorm` layer B reading layer P attaches to P when all of these hold:
/// - P is a convolution or fully connected layer with a linear activation and no batch norm yet
///   (B then computes BN(W x + b) exactly as the attached form does: y = s * (W x + b - mean) + beta);
/// - B is the only consumer of P (counting every input slot of every layer, so `Add(P, P)` is two)
///   and B reads P alone;
/// - P is not a network output (its un-normalised values are asked for);
/// - B normalises as many channels as P produces.
///
/// A batch norm after any other layer stays a layer of its own (the fold pass turns it into a
/// `ChannelAffine`); so does one after a transposed convolution, which has no batch norm to hold.
///
/// How the graph changes depends on what layer names are:
/// - Keras (names are the model's layer names, indices only positions): B is removed; its consumers
///   and any network output on B read P, and the layers after B move up by one. P keeps its name;
///   its section becomes `<P's section>+<B's section>` (`Conv2D+BatchNormalization`). This is the
///   graph the Keras reader built before this pass existed, so reports, fixtures and blob names are
///   unchanged.
/// - Darknet (a layer's name is its index, and [route]/[shortcut] refer to layers by index): no layer
///   moves. B stays at its index as `.identity` reading P, an alias of P's (now normalised) output,
///   so every index keeps meaning the same tensor; P's section becomes `[convolutional]+[batchnorm]`.
///
/// `ModelLoader` runs this on every network it reads, before anything else sees it, so the reference
/// (float64, batch norm applied at run time) and the folded network have the same layers.
public enum BatchNormAttachment {
    /// The `identity` reason an attached Darknet batch norm keeps its place with.
    package static let aliasReason = "batchnorm (attached)"

    /// One decision: the batch norm at `batchNorm` attaches to the layer at `producer`.
    public struct Attachment: Equatable, Sendable {
        /// The batch norm layer's index.
        public var batchNorm: Int
        /// The index of the layer it was attached to.
        public var producer: Int

        /// Batch norm `batchNorm` attached to layer `producer`.
        public init(batchNorm: Int, producer: Int) {
            self.batchNorm = batchNorm
            self.producer = producer
        }
    }

    /// The batch norms of `network` that attach to their producer, in layer order.
    public static func attachments(in network: Network) -> [Attachment] {
        var consumerCount = [Int](repeating: 0, count: network.layers.count)
        for layer in network.layers {
            for input in layer.inputs where input != Network.inputIndex { consumerCount[input] += 1 }
        }
        let outputs = Set(network.outputIndices)
        var result: [Attachment] = []
        for layer in network.layers {
            guard case .batchNorm(let bn) = layer.kind, layer.inputs.count == 1, let producer = layer.inputs.first,
                producer != Network.inputIndex, consumerCount[producer] == 1, !outputs.contains(producer)
            else { continue }
            let channels = bn.mean.count
            switch network.layers[producer].kind {
            case .convolution(let c) where c.batchNorm == nil && c.activation == .linear && c.outputChannels == channels:
                result.append(Attachment(batchNorm: layer.index, producer: producer))
            case .fullyConnected(let f) where f.batchNorm == nil && f.activation == .linear && f.outputCount == channels:
                result.append(Attachment(batchNorm: layer.index, producer: producer))
            default:
                continue
            }
        }
        return result
    }

    /// `network` with every batch norm of `attachments(in:)` attached to its producer (see the type's
    /// doc for how Keras and Darknet graphs change).
    public static func apply(to network: Network) -> Network {
        let found = attachments(in: network)
        guard !found.isEmpty else { return network }
        var result = network
        for attachment in found {
            let bnLayer = network.layers[attachment.batchNorm]
            guard case .batchNorm(let bn) = bnLayer.kind else { continue }
            var producer = result.layers[attachment.producer]
            switch producer.kind {
            case .convolution(var c):
                c.batchNorm = bn
                producer.kind = .convolution(c)
            case .fullyConnected(var f):
                f.batchNorm = bn
                producer.kind = .fullyConnected(f)
            default: continue
            }
            producer.source.section += "+" + bnLayer.source.section
            result.layers[attachment.producer] = producer
            result.layers[attachment.batchNorm].kind = .identity(reason: aliasReason)
        }
        switch network.layerIdentity {
        case .index: return result
        case .name: return removingAliases(result, found)
        }
    }

    /// Removes the attached batch norms' layers, pointing every reference to one at its producer.
    private static func removingAliases(_ network: Network, _ attachments: [Attachment]) -> Network {
        let producerOf = Dictionary(uniqueKeysWithValues: attachments.map { ($0.batchNorm, $0.producer) })
        var newIndex = [Int](repeating: Network.inputIndex, count: network.layers.count)
        var layers: [Layer] = []
        for layer in network.layers where producerOf[layer.index] == nil {
            newIndex[layer.index] = layers.count
            layers.append(layer)
        }
        func remap(_ index: Int) -> Int {
            guard index != Network.inputIndex else { return index }
            return newIndex[producerOf[index] ?? index]
        }
        for i in layers.indices {
            layers[i].index = i
            layers[i].inputs = layers[i].inputs.map(remap)
        }
        var result = network
        result.layers = layers
        result.outputs = network.outputIndices.map(remap)
        return result
    }
}
