import FoldKitCore
import FoldKitONNXProto

/// Upsampling and darknet's reorganisations of space into channels.
extension ONNXGraphBuilder {
    /// Nearest (darknet [upsample], Keras UpSampling2D): `Resize` mode nearest, coordinate_transformation_mode
    /// asymmetric, nearest_mode floor, scales [1, 1, strideY, strideX], so out[y, x] = in[y / sy, x / sx] at
    /// any integer stride (align_corners would differ from darknet at strides 3 and 4). Bilinear (Keras,
    /// TensorFlow's half-pixel centres): mode linear, coordinate_transformation_mode half_pixel, which samples
    /// at (y + 0.5) / s - 0.5 clamped to the input as `BilinearUpsampleKernel` does. Then times darknet's
    /// `scale` when it is not 1.
    mutating func upsample(_ u: Upsample, input: String) -> String {
        let scales = float32s([1, 1, Float(u.strideY), Float(u.strideX)], dims: [4], hint: "scales")
        var attributes: [Onnx_AttributeProto] = []
        switch u.interpolation {
        case .nearest:
            attributes = [
                ONNXAttribute.string("mode", "nearest"), ONNXAttribute.string("coordinate_transformation_mode", "asymmetric"),
                ONNXAttribute.string("nearest_mode", "floor"),
            ]
        case .bilinear:
            attributes = [ONNXAttribute.string("mode", "linear"), ONNXAttribute.string("coordinate_transformation_mode", "half_pixel")]
        }
        let y = node("Resize", [input, "", scales], attributes)
        return affine(y, scale: u.scale, shift: 0)
    }

    /// Space to depth by stride s (`Reorg`), as Reshape and Transpose only - exact, whatever the flavour:
    ///
    /// - darknet [reorg] (`reorg_cpu(..., forward=0)`): the C x H x W input read as C/s^2 x H x s x W x s
    ///   (c2, j, dy, i, dx), transposed to (dy, dx, c2, j, i), which is the output's flat order
    ///   (out channel k = (dy*s + dx) * C/s^2 + c2); darknet's own permutation, not SpaceToDepth.
    /// - [reorg3d] and tf.space_to_depth: out[(dy*s + dx)*C + c, y, x] = in[c, y*s + dy, x*s + dx]: the input
    ///   as [1, C, H/s, s, W/s, s], transposed with perm [0, 3, 5, 1, 2, 4]. Rows and columns past a
    ///   multiple of s (which the output does not reach) are sliced off first.
    mutating func reorg(_ r: Reorg, input: String, inputShape: ActivationShape, outputShape: ActivationShape) throws -> String {
        let s = r.stride
        let (c, h, w) = (inputShape.channels, inputShape.height, inputShape.width)
        switch r.flavor {
        case .darknetReorg:
            guard c % (s * s) == 0 else { throw refuse("[reorg] needs the channel count divisible by stride*stride") }
            let split = reshape(input, to: [c / (s * s), h, s, w, s])
            return reshape(transpose(split, perm: [2, 4, 0, 1, 3]), to: ONNXGraphBuilder.dims(outputShape))
        case .darknetReorg3d, .spaceToDepth:
            let (oh, ow) = (h / s, w / s)
            var x = input
            if oh * s != h || ow * s != w { x = slice(x, axes: [2, 3], starts: [0, 0], ends: [oh * s, ow * s]) }
            let split = reshape(x, to: [1, c, oh, s, ow, s])
            return reshape(transpose(split, perm: [0, 3, 5, 1, 2, 4]), to: ONNXGraphBuilder.dims(outputShape))
        }
    }
}
