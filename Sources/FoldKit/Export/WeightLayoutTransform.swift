import FoldKitCore

/// Rearranges 4-D weights from FoldKit's internal OIHW layout into the layout an engine wants.
///
/// For O outputs, I inputs per group and a kh x kw kernel, source index ((o*I + i)*kh + y)*kw + x moves to
/// - OHWI: ((o*kh + y)*kw + x)*I + i      (Metal MPSCNNConvolution)
/// - HWIO: ((y*kw + x)*I + i)*O + o       (Keras / TensorFlow)
/// - OIHW: unchanged                      (Darknet, PyTorch, ONNX)
public enum WeightLayoutTransform {
    /// `dims` = [O, I, kh, kw] of the OIHW source.
    public static func fromOIHW(_ source: [Float], dims: [Int], to layout: WeightLayout) throws -> [Float] {
        guard dims.count == 4, dims.reduce(1, *) == source.count else {
            throw FoldKitError(.badInput, "weights do not match their shape", expected: "\(dims) = \(dims.reduce(1, *)) values", found: "\(source.count)")
        }
        let (o, i, kh, kw) = (dims[0], dims[1], dims[2], dims[3])
        if layout == .oihw { return source }
        var out = [Float](repeating: 0, count: source.count)
        source.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                var s = 0
                for oo in 0..<o {
                    for ii in 0..<i {
                        for y in 0..<kh {
                            for x in 0..<kw {
                                let d: Int
                                switch layout {
                                case .ohwi: d = ((oo * kh + y) * kw + x) * i + ii
                                case .hwio: d = ((y * kw + x) * i + ii) * o + oo
                                case .oihw: d = s
                                }
                                dst[d] = src[s]
                                s += 1
                            }
                        }
                    }
                }
            }
        }
        return out
    }

    /// The shape as written in `layout`, from OIHW dims.
    public static func shape(_ dims: [Int], in layout: WeightLayout) -> [Int] {
        switch layout {
        case .oihw: return dims
        case .ohwi: return [dims[0], dims[2], dims[3], dims[1]]
        case .hwio: return [dims[2], dims[3], dims[1], dims[0]]
        }
    }

    /// The inverse of `fromOIHW`: values stored in `layout` back to OIHW, `dims` = [O, I, kh, kw].
    public static func toOIHW(_ stored: [Float], dims: [Int], from layout: WeightLayout) throws -> [Float] {
        guard dims.count == 4, dims.reduce(1, *) == stored.count else {
            throw FoldKitError(.badInput, "weights do not match their shape", expected: "\(dims) = \(dims.reduce(1, *)) values", found: "\(stored.count)")
        }
        let (o, i, kh, kw) = (dims[0], dims[1], dims[2], dims[3])
        if layout == .oihw { return stored }
        var out = [Float](repeating: 0, count: stored.count)
        var d = 0
        for oo in 0..<o {
            for ii in 0..<i {
                for y in 0..<kh {
                    for x in 0..<kw {
                        let s = layout == .ohwi ? ((oo * kh + y) * kw + x) * i + ii : ((y * kw + x) * i + ii) * o + oo
                        out[d] = stored[s]
                        d += 1
                    }
                }
            }
        }
        return out
    }
}
