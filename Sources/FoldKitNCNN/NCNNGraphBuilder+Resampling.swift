import FoldKitCore

/// Upsampling and darknet's reorganisations of space into channels.
extension NCNNGraphBuilder {
    /// Nearest (darknet [upsample], Keras UpSampling2D): `Interp` 0=resize_type 1 (nearest) with the layer's
    /// own strides as 1=height_scale and 2=width_scale. ncnn picks source row min((int)(y * (1.f / scale)),
    /// H - 1) in float32 (Interp::forward); darknet and FoldKit pick y / stride. The two are compared for
    /// every output row and column here (`NCNNNearestIndex`); where float32 rounding would pick another row
    /// the upsample is written instead as a `DeconvolutionDepthWise` of a stride x stride kernel of ones with
    /// that stride and no bias, which copies each value into its block (one product by 1 per output).
    ///
    /// Bilinear (Keras, TensorFlow's half-pixel centres): `Interp` 0=2, 6=align_corner 0, which samples at
    /// (y + 0.5) / s - 0.5 clamped to the input as `BilinearUpsampleKernel` does; refused for an input one
    /// row or column high (ncnn then reads before the row). Then darknet's `scale` (a `BinaryOp`) when not 1.
    mutating func upsample(_ u: Upsample, input: String, inputShape: ActivationShape) throws -> String {
        let y: String
        switch u.interpolation {
        case .nearest:
            let exact =
                NCNNNearestIndex.matchesDarknet(extent: inputShape.height, stride: u.strideY)
                && NCNNNearestIndex.matchesDarknet(extent: inputShape.width, stride: u.strideX)
            if exact {
                y = op("Interp", [input], [(0, .int(1)), (1, .float(Float(u.strideY))), (2, .float(Float(u.strideX)))])
            } else {
                let (c, sy, sx) = (inputShape.channels, u.strideY, u.strideX)
                let ones = constants([Float](repeating: 1, count: c * sy * sx), hint: "ones", storage: .flagged)
                y = op(
                    "DeconvolutionDepthWise", [input],
                    [(0, .int(c)), (1, .int(sx)), (11, .int(sy)), (3, .int(sx)), (13, .int(sy)), (5, .int(0)), (6, .int(c * sy * sx)), (7, .int(c))],
                    weights: [ones])
            }
        case .bilinear:
            guard inputShape.height >= 2 && inputShape.width >= 2 else {
                throw refuse("bilinear upsampling of a \(inputShape.height)x\(inputShape.width) input (ncnn's Interp needs two rows and columns)")
            }
            y = op("Interp", [input], [(0, .int(2)), (1, .float(Float(u.strideY))), (2, .float(Float(u.strideX))), (6, .int(0))])
        }
        return affine(y, scale: u.scale, shift: 0)
    }

    /// Space to depth by stride s (`Reorg`): ncnn's `Reorg` with 1=mode 1 computes
    /// out[(dy*s + dx)*C + c, y, x] = in[c, y*s + dy, x*s + dx] over the whole H/s x W/s (floor), which is
    /// [reorg3d] and tf.space_to_depth as they are. darknet's [reorg] (`reorg_cpu(..., forward=0)`, its own
    /// permutation) is the same after the input is read as C/s² x H·s x W·s (`Reorg.darknetReinterpretedInput`,
    /// shared with the other engine writers): `Reshape`, `Reorg` mode 1, `Reshape` to the output - exact,
    /// never ncnn's mode 0 (pixel unshuffle) nor darknet2ncnn's assumption that the two orders agree.
    mutating func reorg(_ r: Reorg, input: String, inputShape: ActivationShape, outputShape: ActivationShape) throws -> String {
        let params: [(Int, NCNNParam)] = [(0, .int(r.stride)), (1, .int(1))]
        switch r.flavor {
        case .darknetReorg:
            guard let seen = r.darknetReinterpretedInput(inputShape) else {
                throw refuse("[reorg] needs the channel count divisible by stride*stride")
            }
            return reshape(op("Reorg", [reshape(input, to: seen)], params), to: outputShape)
        case .darknetReorg3d, .spaceToDepth:
            return op("Reorg", [input], params)
        }
    }
}

/// ncnn's nearest-neighbour source index (src/layer/interp.cpp, x86 alike) against darknet's.
enum NCNNNearestIndex {
    /// Whether, for every output index of an input of `extent` upsampled by `stride`, ncnn's
    /// min((int)(i * (1.f / (float)stride)), extent - 1) in float32 equals i / stride.
    static func matchesDarknet(extent: Int, stride: Int) -> Bool {
        let scale = Float(1) / Float(stride)
        for i in 0..<(extent * stride) where min(Int((Float(i) * scale).rounded(.towardZero)), extent - 1) != i / stride {
            return false
        }
        return true
    }
}
