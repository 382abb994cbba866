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

    /// The streaming form used by conversion: folds and rearranges OIHW weights in place.
    ///
    /// With `dims` = [O, I, kh, kw], row o (the I*kh*kw values of output o) is first scaled to
    /// `Float(Double(w) * scale[o])` when `scale` is given - FoldBatchNorm's arithmetic, so the bytes
    /// equal folding then `fromOIHW` - and then rearranged into `layout`. OIHW and OHWI keep each output's
    /// row at the same place, so they need only a row-sized temporary; HWIO needs a copy of the tensor.
    public static func foldAndRearrange(
        inPlace values: UnsafeMutableBufferPointer<Float>, dims: [Int], scale: [Double]?, to layout: WeightLayout
    ) throws {
        let count = dims.reduce(1, *)
        guard dims.count == 4, values.count == count else {
            throw FoldKitError(.badInput, "weights do not match their shape", expected: "\(dims) = \(count) values", found: "\(values.count)")
        }
        guard count > 0, let base = values.baseAddress else { return }
        let (o, i, kh, kw) = (dims[0], dims[1], dims[2], dims[3])
        let spatial = kh * kw
        let row = i * spatial
        if let scale, scale.count != o {
            throw FoldKitError(.badInput, "batch norm size does not match the layer's outputs", expected: "\(o)", found: "\(scale.count)")
        }
        /// Row o scaled (or copied) into `target`: Float(Double(w) * s), contiguous so it vectorises.
        func scaledRow(_ oo: Int, into target: UnsafeMutablePointer<Float>) {
            let r = base + oo * row
            guard let scale else {
                if target != r { target.update(from: r, count: row) }
                return
            }
            let s = scale[oo]
            for k in 0..<row { target[k] = FoldBatchNorm.foldedWeight(r[k], scale: s) }
        }
        let rearranges = layout == .hwio || (layout == .ohwi && spatial > 1 && i > 1)
        if !rearranges {
            if scale != nil { for oo in 0..<o { scaledRow(oo, into: base + oo * row) } }
            return
        }
        switch layout {
        case .oihw:
            return
        case .ohwi:
            let temporary = UnsafeMutablePointer<Float>.allocate(capacity: row)
            defer { temporary.deallocate() }
            for oo in 0..<o {
                scaledRow(oo, into: temporary)
                // out[p*I + ii] = temporary[ii*spatial + p]: contiguous stores, loads stepping by pointer
                // (no index multiply per element; the row is in L1).
                var out = base + oo * row
                for p in 0..<spatial {
                    var from = UnsafePointer(temporary + p)
                    for _ in 0..<i {
                        out.pointee = from.pointee
                        out += 1
                        from += spatial
                    }
                }
            }
        case .hwio:
            let copy = UnsafeMutablePointer<Float>.allocate(capacity: count)
            defer { copy.deallocate() }
            for oo in 0..<o { scaledRow(oo, into: copy + oo * row) }
            for oo in 0..<o {
                let r = copy + oo * row
                for ii in 0..<i {
                    for p in 0..<spatial { base[(p * i + ii) * o + oo] = r[ii * spatial + p] }
                }
            }
        }
    }

    /// Whether `layout` keeps each output's row (its I*kh*kw values) in one contiguous place, so that
    /// `foldAndRearrange(inPlace:...)` on a run of whole rows ([rows, I, kh, kw]) gives exactly those rows
    /// of the whole tensor's result. OIHW and OHWI do; HWIO interleaves the outputs.
    public static func isRowLocal(_ layout: WeightLayout) -> Bool { layout != .hwio }

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
