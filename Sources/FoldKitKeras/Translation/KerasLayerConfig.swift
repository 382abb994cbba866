import FoldKitCore

/// One layer's `config` with the value decoders every config family shares: integers or pairs,
/// padding modes, edge amounts. Errors name the description file and the layer (`conv1 (Conv2D)`).
struct KerasLayerConfig {
    let layer: KerasLayerDescription
    let descriptionFile: String

    subscript(key: String) -> KerasJSON? { layer.config[key] }

    /// The first of `keys` that is present (Keras 2 name first, then its Keras 1 name).
    func firstKey(_ keys: String...) -> String { keys.first { layer.config[$0] != nil } ?? keys[keys.count - 1] }

    /// `key` as n (meaning (n, n)) or (a, b); `d` when absent or null.
    func pair(_ key: String, default d: (Int, Int)) throws -> (Int, Int) {
        guard let value = layer.config[key], !value.isNull else { return d }
        if let v = value.int { return (v, v) }
        if let list = value.array, list.count == 2, let a = list[0].int, let b = list[1].int { return (a, b) }
        throw error(.badInput, "'\(key)' is not an integer or a pair", found: "\(value)")
    }

    /// ZeroPadding2D / Cropping2D amounts: n, (vertical, horizontal), ((top, bottom), (left, right)),
    /// or the Keras 1 dict {top_pad, bottom_pad, left_pad, right_pad}.
    func edges(_ key: String, default d: Int) throws -> Padding2D {
        guard let value = layer.config[key], !value.isNull else { return .uniform(d) }
        if let v = value.int { return .uniform(v) }
        if let object = value.object {
            let get = { (k: String) in object[k]?.int ?? 0 }
            return Padding2D(top: get("top_pad"), left: get("left_pad"), bottom: get("bottom_pad"), right: get("right_pad"))
        }
        if let list = value.array, list.count == 2 {
            if let a = list[0].int, let b = list[1].int { return Padding2D(top: a, left: b, bottom: a, right: b) }
            if let v = list[0].array, let h = list[1].array, v.count == 2, h.count == 2,
                let t = v[0].int, let b = v[1].int, let l = h[0].int, let r = h[1].int
            {
                return Padding2D(top: t, left: l, bottom: b, right: r)
            }
        }
        throw error(.badInput, "'\(key)' is not n, (v, h) or ((top, bottom), (left, right))", found: "\(value)")
    }

    /// `padding` (Keras 1: `border_mode`), 'valid' when absent.
    var paddingMode: String { layer.config["padding"]?.string ?? layer.config["border_mode"]?.string ?? "valid" }

    /// 'valid' -> no padding; 'same' -> TensorFlow's rule (see `KerasLayout.samePadding`).
    /// Kernel, stride and dilation must be positive: 'same' padding divides by the stride.
    func spatialPadding(_ shape: ActivationShape, kernel: (Int, Int), stride: (Int, Int), dilation: (Int, Int)) throws -> Padding2D {
        for (name, pair) in [("kernel size", kernel), ("strides", stride), ("dilation rate", dilation)] where pair.0 < 1 || pair.1 < 1 {
            throw error(.badInput, "\(name) must be positive", expected: "integers >= 1", found: "(\(pair.0), \(pair.1))")
        }
        let mode = paddingMode
        switch mode {
        case "valid": return .zero
        case "same":
            let v = KerasLayout.samePadding(input: shape.height, kernel: kernel.0, stride: stride.0, dilation: dilation.0)
            let h = KerasLayout.samePadding(input: shape.width, kernel: kernel.1, stride: stride.1, dilation: dilation.1)
            return Padding2D(top: v.before, left: h.before, bottom: v.after, right: h.after)
        default:
            throw error(.unsupported, "padding mode '\(mode)' is not supported", expected: "valid or same", found: mode)
        }
    }

    func error(_ kind: FoldKitError.Kind, _ message: String, expected: String? = nil, found: String? = nil) -> FoldKitError {
        FoldKitError(kind, message, file: descriptionFile, layer: layer.label, expected: expected, found: found)
    }
}
