/// Output shapes: each operation's rule is in its declaration (`LayerOperation.outputShape(for:)`); this
/// adds the checks every layer shares.
extension LayerKind {
    /// The output shape for the given input shapes, or a `FoldKitError` saying why they do not fit: the
    /// layer needs an input, and its output may not be empty.
    ///
    /// Spatial output sizes:
    /// - convolution: (in + padBefore + padAfter - ((k - 1) * dilation + 1)) / stride + 1
    /// - transposed convolution: its own outputHeight x outputWidth (the full output is (in - 1) * stride + k)
    /// - pooling:     (in + padBefore + padAfter - k) / stride + 1
    /// - locally connected: (in + 2 * padding - k) / stride + 1, which must equal its stored output size
    public func outputShape(for inputs: [ActivationShape]) throws -> ActivationShape {
        guard let first = inputs.first else { throw FoldKitError(.badInput, "layer has no input") }
        let result = try operation.outputShape(for: inputs)
        guard result.channels > 0 && result.height > 0 && result.width > 0 else {
            throw FoldKitError(.badInput, "output would be empty", found: "\(result) from input \(first)")
        }
        return result
    }
}
