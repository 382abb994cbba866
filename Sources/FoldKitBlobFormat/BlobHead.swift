import FoldKitCore

/// One detection head of the network (manifest.json's `heads[]`): which layer's output it decodes, that
/// output's shape, and the decoding parameters (`DetectionHead`: kind, classes, anchors, mask, coords,
/// softmax, scaleXY, newCoords, side, squaredSides), so an app decodes boxes without the model's files
/// (`DetectionDecoder`; FoldKitLoader's `BlobFolder.detections`).
public struct BlobHead: Codable, Equatable, Sendable {
    /// The index of the head's layer (`BlobLayer.index`): the layer whose output tensor is decoded.
    public var layer: Int
    /// [C, H, W] of that output tensor, channel-major.
    public var outputShape: [Int]
    /// How to decode it (Docs/BlobFormat.md "Detection heads" has the formulas).
    public var decoding: DetectionHead

    /// A head decoding layer `layer`'s output of `outputShape` with `decoding`.
    public init(layer: Int, outputShape: [Int], decoding: DetectionHead) {
        self.layer = layer
        self.outputShape = outputShape
        self.decoding = decoding
    }
}
