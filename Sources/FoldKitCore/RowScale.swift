/// Batch norm folded into a weight tensor, one output row at a time: with s[o] the fold's scale of
/// output o, every value w of row o becomes
///
///     w' = Float(Double(w) * s[o])
///
/// computed in float64 from the float32 value and rounded once, element by element, so a whole tensor and
/// any split of it into runs of whole rows give the same bytes. The fold pass applies it to tensors held in
/// memory at once and to file-backed ones as they are read (`WeightTensor.Storage.scaledFile`).
package enum RowScale {
    /// Scales rows `firstRow ..< firstRow + values.count / rowLength` of `values` in place by `scale`.
    /// `values` must hold whole rows of `rowLength` values each, inside the `scale.count` rows.
    package static func apply(_ scale: [Double], to values: UnsafeMutableBufferPointer<Float>, firstRow: Int, rowLength: Int) throws {
        guard rowLength > 0, let base = values.baseAddress else { return }
        let rows = values.count / rowLength
        guard values.count % rowLength == 0, firstRow >= 0, firstRow + rows <= scale.count else {
            throw FoldKitError(
                .badInput, "weights do not match their shape",
                expected: "rows \(firstRow)..<\(firstRow + rows) of \(scale.count), \(rowLength) values each", found: "\(values.count) values")
        }
        for r in 0..<rows {
            let s = scale[firstRow + r]
            let row = base + r * rowLength
            for k in 0..<rowLength { row[k] = Float(Double(row[k]) * s) }
        }
    }
}
