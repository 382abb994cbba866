import FoldKitBlobFormat
import FoldKitCore

/// Moves 4-D weights between FoldKit's internal OIHW layout and the layout an engine wants; the one place
/// that knows where an OIHW element lands (`storedIndex`).
///
/// For O outputs, I inputs per group and a kh x kw kernel, source index ((o*I + i)*kh + y)*kw + x moves to
/// - OHWI: ((o*kh + y)*kw + x)*I + i      (Metal MPSCNNConvolution)
/// - HWIO: ((y*kw + x)*I + i)*O + o       (Keras / TensorFlow)
/// - OIHW: unchanged                      (Darknet, PyTorch, ONNX)
/// - sliced: ((o*kh + y)*kw + x)*Ip + i, Ip = 4*ceil(I/4), padding zero (a Metal kernel reading 4-channel
///   texels); depthwise (groups = O, I = 1): (((o/4)*kh + y)*kw + x)*4 + o%4, last slice zero-padded.
///   The sliced forms hold more values than the source (Docs/BlobFormat.md "Sliced layout").
package enum WeightLayoutTransform {
    /// Where OIHW element (o, i, y, x) of weights with `dims` = [O, I, kh, kw] is stored in `layout`
    /// (the formulas above). `depthwise` selects the depthwise sliced form; other layouts ignore it.
    @inline(__always)
    package static func storedIndex(
        o: Int, i: Int, y: Int, x: Int, dims: (o: Int, i: Int, kh: Int, kw: Int), in layout: WeightLayout, depthwise: Bool = false
    ) -> Int {
        switch layout {
        case .oihw: return ((o * dims.i + i) * dims.kh + y) * dims.kw + x
        case .ohwi: return ((o * dims.kh + y) * dims.kw + x) * dims.i + i
        case .hwio: return ((y * dims.kw + x) * dims.i + i) * dims.o + o
        case .sliced:
            if depthwise { return (((o / 4) * dims.kh + y) * dims.kw + x) * 4 + o % 4 }
            return ((o * dims.kh + y) * dims.kw + x) * paddedToSlices(dims.i) + i
        }
    }

    /// `count` rounded up to a whole number of 4-channel slices: 4*ceil(count/4).
    package static func paddedToSlices(_ count: Int) -> Int { (count + 3) / 4 * 4 }

    /// Whether a layer's weights take the depthwise sliced form: one input channel per group and one
    /// output per group (groups = O = input channels), so output channel o reads input channel o.
    package static func isDepthwise(groups: Int, dims: [Int]) -> Bool {
        dims.count == 4 && groups > 1 && dims[1] == 1 && dims[0] == groups
    }

    /// The OIHW `source` (`dims` = [O, I, kh, kw]) rearranged into `layout`.
    package static func fromOIHW(_ source: [Float], dims: [Int], to layout: WeightLayout, depthwise: Bool = false) throws -> [Float] {
        if layout == .sliced {
            return try source.withUnsafeBufferPointer { try sliced(fromOIHW: $0, dims: dims, depthwise: depthwise) }
        }
        var out = source
        try out.withUnsafeMutableBufferPointer { try rearrange(inPlace: $0, dims: dims, to: layout) }
        return out
    }

    /// The OIHW `source` in the sliced layout: every element at `storedIndex(.sliced)`, padding zero.
    package static func sliced(fromOIHW source: UnsafeBufferPointer<Float>, dims: [Int], depthwise: Bool) throws -> [Float] {
        let d = try checkedDims(dims, count: source.count)
        try checkDepthwise(depthwise, d)
        var out = [Float](repeating: 0, count: shape(dims, in: .sliced, depthwise: depthwise).reduce(1, *))
        var index = 0
        for o in 0..<d.o {
            for i in 0..<d.i {
                for y in 0..<d.kh {
                    for x in 0..<d.kw {
                        out[storedIndex(o: o, i: i, y: y, x: x, dims: d, in: .sliced, depthwise: depthwise)] = source[index]
                        index += 1
                    }
                }
            }
        }
        return out
    }

    /// The inverse of `fromOIHW`: values stored in `layout` back to OIHW, `dims` = [O, I, kh, kw]. The
    /// padding of the sliced layout is dropped (not checked).
    package static func toOIHW(_ stored: [Float], dims: [Int], from layout: WeightLayout, depthwise: Bool = false) throws -> [Float] {
        let d = try checkedDims(dims, count: dims.reduce(1, *))
        if layout == .sliced { try checkDepthwise(depthwise, d) }
        let storedCount = shape(dims, in: layout, depthwise: depthwise).reduce(1, *)
        guard stored.count == storedCount else {
            throw FoldKitError(
                .badInput, "weights do not match their shape",
                expected:
                    "\(shape(dims, in: layout, depthwise: depthwise)) = \(storedCount) values in \(layout.blobLayout(depthwise: depthwise).rawValue)",
                found: "\(stored.count)")
        }
        if layout == .oihw { return stored }
        var out = [Float](repeating: 0, count: dims.reduce(1, *))
        var index = 0
        for o in 0..<d.o {
            for i in 0..<d.i {
                for y in 0..<d.kh {
                    for x in 0..<d.kw {
                        out[index] = stored[storedIndex(o: o, i: i, y: y, x: x, dims: d, in: layout, depthwise: depthwise)]
                        index += 1
                    }
                }
            }
        }
        return out
    }

    /// Rearranges OIHW weights (`dims` = [O, I, kh, kw]) into `layout` in place; conversion calls it on
    /// each chunk of whole output rows after the fold pass has folded them. OIHW and OHWI keep each
    /// output's row at the same place (see `isRowLocal`), so they need only a row-sized temporary; HWIO
    /// needs a copy of the tensor.
    package static func rearrange(inPlace values: UnsafeMutableBufferPointer<Float>, dims: [Int], to layout: WeightLayout) throws {
        let d = try checkedDims(dims, count: values.count)
        guard values.count > 0, let base = values.baseAddress else { return }
        let spatial = d.kh * d.kw
        let row = d.i * spatial
        switch layout {
        case .oihw:
            return
        case .sliced:
            throw FoldKitError(.unsupported, "the sliced layout holds more values than OIHW and cannot be made in place; use sliced(fromOIHW:)")
        case .ohwi:
            // Within row o the move is storedIndex(.ohwi) - o*row: p*I + i from i*spatial + p (p = y*kw + x).
            // Written with pointers stepping (no index multiply per element; the row is in L1).
            guard spatial > 1 && d.i > 1 else { return }
            let temporary = UnsafeMutablePointer<Float>.allocate(capacity: row)
            defer { temporary.deallocate() }
            for o in 0..<d.o {
                var out = base + o * row
                temporary.update(from: out, count: row)
                for p in 0..<spatial {
                    var from = UnsafePointer(temporary + p)
                    for _ in 0..<d.i {
                        out.pointee = from.pointee
                        out += 1
                        from += spatial
                    }
                }
            }
        case .hwio:
            let copy = UnsafeMutablePointer<Float>.allocate(capacity: values.count)
            defer { copy.deallocate() }
            copy.update(from: base, count: values.count)
            // storedIndex(.hwio) = (p*I + i)*O + o for p = y*kw + x: OIHW's contiguous run of p for (o, i)
            // lands every I*O values from i*O + o, written with a pointer stepping by I*O.
            var source = UnsafePointer(copy)
            let step = d.i * d.o
            for o in 0..<d.o {
                for i in 0..<d.i {
                    var out = base + i * d.o + o
                    for _ in 0..<spatial {
                        out.pointee = source.pointee
                        source += 1
                        out += step
                    }
                }
            }
        }
    }

    /// Whether `layout` keeps each output's row (its I*kh*kw values) in one contiguous place, so that
    /// `rearrange(inPlace:...)` on a run of whole rows ([rows, I, kh, kw]) gives exactly those rows
    /// of the whole tensor's result. OIHW and OHWI do; HWIO interleaves the outputs, and sliced is not
    /// made in place (it grows by its padding).
    package static func isRowLocal(_ layout: WeightLayout) -> Bool { layout == .oihw || layout == .ohwi }

    /// The shape as written in `layout`, from OIHW dims (sliced: the padded shape).
    package static func shape(_ dims: [Int], in layout: WeightLayout, depthwise: Bool = false) -> [Int] {
        guard dims.count == 4 else { return dims }
        switch layout {
        case .oihw: return dims
        case .ohwi: return [dims[0], dims[2], dims[3], dims[1]]
        case .hwio: return [dims[2], dims[3], dims[1], dims[0]]
        case .sliced:
            return depthwise ? [(dims[0] + 3) / 4, dims[2], dims[3], 4] : [dims[0], dims[2], dims[3], paddedToSlices(dims[1])]
        }
    }

    /// The depthwise sliced form needs one input channel per group.
    private static func checkDepthwise(_ depthwise: Bool, _ d: (o: Int, i: Int, kh: Int, kw: Int)) throws {
        guard !depthwise || d.i == 1 else {
            throw FoldKitError(.badInput, "depthwise weights have one input channel per group", expected: "I = 1", found: "I = \(d.i)")
        }
    }

    /// `dims` as (O, I, kh, kw) after checking they are 4-D and hold `count` values: the one shape check
    /// of weights against their OIHW dims.
    package static func checkedDims(_ dims: [Int], count: Int) throws -> (o: Int, i: Int, kh: Int, kw: Int) {
        guard dims.count == 4, dims.reduce(1, *) == count else {
            throw FoldKitError(.badInput, "weights do not match their shape", expected: "\(dims) = \(dims.reduce(1, *)) values", found: "\(count)")
        }
        return (dims[0], dims[1], dims[2], dims[3])
    }
}
