import FoldKitCore

extension Network {
    /// The blobs of `layer` as its operation declares them (`LayerOperation.blobs`), over the layer's input
    /// shapes in this network: what the blob writer writes and the blob readers expect, in that order.
    package func blobPlans(of layer: Layer) -> [BlobTensorPlan] {
        layer.kind.operation.blobs(inputShapes: layer.inputs.map(shape(of:)), outputShape: layer.outputShape)
    }

    /// The OIHW dims [O, I, kh, kw] a layer's weights blob is written from, and whether they take the
    /// depthwise sliced form, as the operation declares them (a connected layer's [out, C, H, W] over its
    /// input, a locally connected layer's [L*O, C, k, k]: Docs/BlobFormat.md); nil for layers without a
    /// weights blob. The writer moves weights from these dims to the manifest's layout, the readers back.
    package func weightsForm(of layer: Layer) -> (dims: [Int], depthwise: Bool)? {
        for plan in blobPlans(of: layer) {
            if case .weights(let dims, let depthwise) = plan.form { return (dims, depthwise) }
        }
        return nil
    }
}
