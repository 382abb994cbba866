import FoldKitCore

/// A Keras model's input as its description declares it: `batch_input_shape` / `batch_shape`
/// without the batch axis, in the model's own axis order, `nil` where the size is undefined (`None`).
///
/// Keras takes an input of shape `(N,) + dims` (batch first); FoldKit runs batch N = 1. The axes are
/// (features) for a vector model, (H, W, C) channels-last, (C, H, W) channels-first (Keras 1 `th`,
/// `data_format="channels_first"`).
package struct KerasInputDeclaration: Sendable, Equatable, Codable {
    /// The declared sizes without the batch axis; `nil` = undefined.
    package var dims: [Int?]
    /// True for channels-first models: dims are (C, H, W).
    package var channelsFirst: Bool

    package init(dims: [Int?], channelsFirst: Bool) {
        self.dims = dims
        self.channelsFirst = channelsFirst
    }

    /// Position of the height axis in `dims` (rank 3 only): 1 for (C, H, W), 0 for (H, W, C).
    package var heightAxis: Int? { dims.count == 3 ? (channelsFirst ? 1 : 0) : nil }
    /// Position of the width axis in `dims` (rank 3 only): 2 for (C, H, W), 1 for (H, W, C).
    package var widthAxis: Int? { dims.count == 3 ? (channelsFirst ? 2 : 1) : nil }

    /// True when the height or the width is undefined (`None`).
    package var hasUndefinedSize: Bool { dims.contains { $0 == nil } }

    /// `dims` with the undefined height/width replaced by `height` / `width` where given.
    package func filled(height: Int?, width: Int?) -> [Int?] {
        var out = dims
        if let h = heightAxis, out[h] == nil { out[h] = height }
        if let w = widthAxis, out[w] == nil { out[w] = width }
        return out
    }

    /// The array shapes taken for `dims` (default: as declared): `(1, H, W, 3) or (H, W, 3)`, with
    /// undefined sizes written H / W (`?` elsewhere).
    package func takenShapesText(_ dims: [Int?]? = nil) -> String {
        let sizes = dims ?? self.dims
        let parts = sizes.indices.map { i -> String in
            if let size = sizes[i] { return String(size) }
            return i == heightAxis ? "H" : i == widthAxis ? "W" : "?"
        }
        return Self.tuple(["1"] + parts) + " or " + Self.tuple(parts)
    }

    /// Keras' batch-first notation: `(None, None, None, 3)` for dims `[nil, nil, 3]` with batch `None`.
    package static func text(_ dims: [Int?], batch: String = "None") -> String {
        tuple([batch] + dims.map { $0.map(String.init) ?? "None" })
    }

    /// `(a, b)`; a single axis gets numpy's trailing comma `(a,)`.
    static func tuple(_ parts: [String]) -> String {
        "(" + parts.joined(separator: ", ") + (parts.count == 1 ? ",)" : ")")
    }
}
