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

    /// Values zero-filled in memory so far (no weights file).
    private var zeroFilled = 0

    /// The next tensor of `shape`. Its size is checked before anything is reserved: the product of
    /// `shape` must fit `Int` with its byte offset, and without a weights file the zero-filled total
    /// stays within `SizeLimits.maximumZeroFilledWeightElements`. (With a file nothing is allocated
    /// here; the reader compares the plan with the file's size afterwards.)
    func take(_ role: TensorRole, shape: [Int], fanIn: Int = 0, layer: String) throws -> WeightTensor {
        guard let count = SizeLimits.elementCount(shape), count <= Int.max / 8 - offset else {
            throw FoldKitError(
                .badInput, "\(role.readableName) tensor \(shape) is larger than any file can hold", file: path, layer: layer,
                byteOffset: path == nil ? nil : offset, expected: "a size that fits in a weights file", found: "shape \(shape)")
        }
        if path == nil {
            guard count <= SizeLimits.maximumZeroFilledWeightElements - zeroFilled else {
                throw FoldKitError(
                    .badInput, "the cfg describes more parameters than FoldKit zero-fills without a weights file", layer: layer,
                    expected: "at most \(SizeLimits.maximumZeroFilledWeightElements) values in all",
                    found: "\(zeroFilled + count) values up to this \(role.readableName) tensor \(shape)")
            }
            zeroFilled += count
        }
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
