import FoldKitCore

/// Hands out the layers' tensors in file order. With a weights file each tensor is a `FileSpan`
/// into it (nothing is read: big models stream later); without one, tensors are zero-filled in memory.
/// Every tensor is recorded in `plan`, so the reader can check the file size afterwards and name the
/// layer whose tensor is cut off.
final class WeightsCursor {
    let path: String?
    private(set) var offset: Int
    private(set) var plan: [PlannedTensor] = []

    init(path: String?, dataOffset: Int) {
        self.path = path
        self.offset = dataOffset
    }

    func take(_ role: DarknetTensorRole, shape: [Int], fanIn: Int = 0, layer: String) -> WeightTensor {
        let count = shape.reduce(1, *)
        plan.append(PlannedTensor(layerLabel: layer, role: role, byteOffset: offset, count: count, fanIn: fanIn))
        defer { offset += count * 4 }
        if let path {
            return WeightTensor(shape: shape, span: FileSpan(path: path, byteOffset: offset, count: count))
        }
        return WeightTensor(shape: shape, values: [Float](repeating: 0, count: count))
    }
}

extension FoldKitError {
    /// The same error with `layer` replaced by the fuller label.
    func relabelled(_ label: String) -> FoldKitError {
        var copy = self
        copy.layer = label
        return copy
    }
}
