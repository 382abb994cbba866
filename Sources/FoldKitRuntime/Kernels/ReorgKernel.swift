import FoldKitCore

/// Space-to-depth rearrangements of a C x H x W input with stride s, output C*s*s x H/s x W/s.
///
/// - `.darknetReorg` (Darknet [reorg]; AlexeyAB's REORG_OLD and pjreddie's reorg both call
///   `reorg_cpu(input, w=W, h=H, c=C, batch, s, forward=0, output)`): a permutation of the flat
///   channel-major buffers. With C' = C/(s*s), for k < C, j < H, i < W:
///
///       c2 = k % C', offset = k / C', w2 = i*s + offset % s, h2 = j*s + offset / s
///       out[i + W*(j + H*k)] = in[w2 + W*s*(h2 + H*s*c2)]
///
///   (the input read as if it were C' x H*s x W*s; it needs C divisible by s*s).
/// - `.darknetReorg3d` (Darknet [reorg3d], AlexeyAB's REORG: `reorg_cpu(input, W/s, H/s, C*s*s, batch, s, 0, output)`):
///   out[offset*C + c, y, x] = in[c, y*s + offset / s, x*s + offset % s] for offset < s*s.
/// - `.spaceToDepth` (tf.space_to_depth, NHWC out[y, x, (dy*s + dx)*C + c] = in[y*s + dy, x*s + dx, c]):
///   in channel-major terms the same map as `.darknetReorg3d`.
struct ReorgKernel<Scalar: ExecutorScalar>: LayerKernel {
    let reorg: Reorg
    let input: ActivationShape

    init(_ reorg: Reorg, input: ActivationShape, layer: Layer) throws {
        let area = reorg.stride * reorg.stride
        if reorg.flavor == .darknetReorg && input.channels % area != 0 {
            throw FoldKitError(
                .badInput, "Darknet [reorg] needs the channel count divisible by stride*stride",
                file: layer.source.file, line: layer.source.line, layer: layer.label,
                expected: "a multiple of \(area) channels", found: "\(input.channels)")
        }
        self.reorg = reorg
        self.input = input
    }

    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    func forward(_ inputs: [[Scalar]], into output: UnsafeMutableBufferPointer<Scalar>, scratch: UnsafeMutableBufferPointer<Scalar>) {
        let s = reorg.stride
        let c = input.channels, h = input.height, w = input.width
        inputs[0].withUnsafeBufferPointer { x in
            switch reorg.flavor {
            case .darknetReorg:
                let reducedChannels = c / (s * s)
                for k in 0..<c {
                    let c2 = k % reducedChannels, offset = k / reducedChannels
                    for j in 0..<h {
                        let h2 = j * s + offset / s
                        for i in 0..<w {
                            let w2 = i * s + offset % s
                            output[i + w * (j + h * k)] = x[w2 + w * s * (h2 + h * s * c2)]
                        }
                    }
                }
            case .darknetReorg3d, .spaceToDepth:
                let outH = h / s, outW = w / s
                for offset in 0..<(s * s) {
                    let dy = offset / s, dx = offset % s
                    for ch in 0..<c {
                        let dst = (offset * c + ch) * outH * outW
                        for y in 0..<outH {
                            let src = (ch * h + y * s + dy) * w + dx
                            for xo in 0..<outW { output[dst + y * outW + xo] = x[src + xo * s] }
                        }
                    }
                }
            }
        }
    }
}
