import FoldKitCore

/// Upsampling and darknet's reorganisations of space into channels.
extension TFLiteGraphBuilder {
    /// Nearest (darknet [upsample], Keras UpSampling2D): RESIZE_NEAREST_NEIGHBOR (align_corners and
    /// half_pixel_centers false) to H * sy x W * sx, where LiteRT's source index equals darknet's y / stride
    /// for every output row and column (`TFLiteNearestIndex`, both of LiteRT's kernels' formulas); where
    /// float32 rounding would pick another row, the exact copy instead: RESHAPE to [H, 1, W, 1, C],
    /// BROADCAST_TO [H, sy, W, sx, C], RESHAPE to [1, H * sy, W * sx, C]. Then darknet's `scale` (a MUL)
    /// when not 1.
    ///
    /// Bilinear (Keras, TensorFlow's half-pixel centres): RESIZE_BILINEAR with half_pixel_centers true, which
    /// samples at (y + 0.5) / s - 0.5 clamped to the input as `BilinearUpsampleKernel` does.
    mutating func upsample(_ u: Upsample, input: Int, inputShape: ActivationShape) throws -> Int {
        let (h, w, c, sy, sx) = (inputShape.height, inputShape.width, inputShape.channels, u.strideY, u.strideX)
        let size = integers([h * sy, w * sx])
        let y: Int
        switch u.interpolation {
        case .nearest:
            if TFLiteNearestIndex.matchesDarknet(extent: h, stride: sy) && TFLiteNearestIndex.matchesDarknet(extent: w, stride: sx) {
                y = op(.resizeNearestNeighbor, [input, size], shape: [1, h * sy, w * sx, c], options: .resizeNearest)
            } else {
                let spread = op(
                    .broadcastTo, [reshape(input, to: [h, 1, w, 1, c]), integers([h, sy, w, sx, c])], shape: [h, sy, w, sx, c],
                    options: .broadcastTo)
                y = reshape(spread, to: [1, h * sy, w * sx, c])
            }
        case .bilinear:
            y = op(.resizeBilinear, [input, size], shape: [1, h * sy, w * sx, c], options: .resizeBilinearHalfPixel)
        }
        return affine(y, scale: u.scale, shift: 0)
    }

    /// Space to depth by stride s (`Reorg`): SPACE_TO_DEPTH computes out[y, x, (dy*s + dx)*C + c] =
    /// in[y*s + dy, x*s + dx, c], which is [reorg3d] and tf.space_to_depth as they are (the input SLICEd to
    /// multiples of s first, as FoldKit floors H / s). darknet's [reorg] (`reorg_cpu(..., forward=0)`, its own
    /// permutation) is the same after the input is read as C/s² x H·s x W·s in FoldKit's channel-major order
    /// (`Reorg.darknetReinterpretedInput`, shared with the other engine writers): a channel-major reshape
    /// (TRANSPOSE, RESHAPE, TRANSPOSE), SPACE_TO_DEPTH, and a channel-major reshape to the output.
    mutating func reorg(_ r: Reorg, input: Int, inputShape: ActivationShape, outputShape: ActivationShape) throws -> Int {
        let s = r.stride
        func spaceToDepth(_ x: Int, _ seen: ActivationShape) -> Int {
            let (h, w) = (seen.height / s * s, seen.width / s * s)
            let cut = slice(x, begin: [0, 0, 0, 0], size: [1, h, w, seen.channels])
            return op(.spaceToDepth, [cut], shape: [1, h / s, w / s, seen.channels * s * s], options: .spaceToDepth(block: s))
        }
        switch r.flavor {
        case .darknetReorg:
            guard let seen = r.darknetReinterpretedInput(inputShape) else {
                throw refuse("[reorg] needs the channel count divisible by stride*stride")
            }
            let moved = spaceToDepth(channelMajorReshape(input, to: seen), seen)
            let movedShape = shape(moved)
            if movedShape == nhwc(outputShape) { return moved }
            return channelMajorReshape(moved, to: outputShape)
        case .darknetReorg3d, .spaceToDepth:
            return spaceToDepth(input, inputShape)
        }
    }
}
