import FoldKitCore
import FoldKitKeras

/// Matches an input array against a Keras model's declared input.
///
/// Keras takes `(N,) + dims` (batch first); FoldKit runs batch N = 1, so the array is
/// `(1,) + dims` or `dims` (no batch axis), where dims are the model's own axes:
/// (features), (H, W, C) channels-last, (C, H, W) channels-first. Sizes the model declares must
/// match; undefined ones (`None`) are taken from the array, or from `height` / `width` when given
/// (the array must then agree).
enum KerasInputMatch {
    /// The array's sizes without the batch axis, in the model's order. Errors name the array file,
    /// the shapes the model takes and the shape found; a batch other than 1 says so.
    static func dims(of array: InputArray, declaration: KerasInputDeclaration, height: Int?, width: Int?, modelFile: String) throws -> [Int] {
        let wanted = declaration.filled(height: height, width: width)
        let expected = expectedText(wanted, declaration: declaration) + " for \(modelFile)"
        let rank = wanted.count
        let body: [Int]
        if array.shape.count == rank + 1 {
            guard array.shape[0] == 1 else {
                throw FoldKitError(
                    .usage, "only batch 1 is supported (the first axis is the batch)", file: array.path,
                    expected: expected, found: array.shapeText)
            }
            body = Array(array.shape.dropFirst())
        } else if array.shape.count == rank {
            body = array.shape
        } else {
            throw FoldKitError(.usage, "input shape does not match the model", file: array.path, expected: expected, found: array.shapeText)
        }
        for (size, declared) in zip(body, wanted) where size <= 0 || (declared != nil && declared != size) {
            throw FoldKitError(.usage, "input shape does not match the model", file: array.path, expected: expected, found: array.shapeText)
        }
        return body
    }

    /// `(1, H, W, 3) or (H, W, 3)`: the shapes taken, undefined sizes written H / W (or `?`).
    static func expectedText(_ dims: [Int?], declaration: KerasInputDeclaration) -> String {
        declaration.takenShapesText(dims)
    }

    /// The array's values in FoldKit's channel-major order (C x H x W; vectors unchanged).
    static func channelMajor(_ values: [Float], dims: [Int], declaration: KerasInputDeclaration) -> [Float] {
        guard dims.count == 3, !declaration.channelsFirst else { return values }
        return TensorLayout.hwcToCHW(values, shape: ActivationShape(channels: dims[2], height: dims[0], width: dims[1]))
    }
}
