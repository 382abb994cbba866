import FoldKitBlobFormat
import FoldKitCore
import FoldKitDetection

extension BlobHead {
    /// Every detection head of `network`, in network order, with its layer's output shape.
    static func heads(of network: Network) -> [BlobHead] {
        network.layers.compactMap { layer in
            guard case .detection(let head) = layer.kind else { return nil }
            let shape = layer.outputShape
            return BlobHead(layer: layer.index, outputShape: [shape.channels, shape.height, shape.width], decoding: head)
        }
    }
}
