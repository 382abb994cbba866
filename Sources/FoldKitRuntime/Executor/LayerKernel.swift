import FoldKitCore

/// One layer's computation, prepared once by `Executor.init` (parameters converted to `Scalar`,
/// geometry checked) and run by `Executor.run`.
package protocol LayerKernel<Scalar> {
    associatedtype Scalar: ExecutorScalar
    /// Elements of scratch memory `forward` needs (im2col columns); 0 for most kernels.
    var scratchCount: Int { get }
    /// Computes the layer from its inputs (channel-major, in `Layer.inputs` order) into `output`,
    /// writing every element of `output`.
    func forward(_ inputs: [[Scalar]], into output: UnsafeMutableBufferPointer<Scalar>, scratch: UnsafeMutableBufferPointer<Scalar>)
}

extension LayerKernel {
    var scratchCount: Int { 0 }
}

/// Converts a parameter tensor to `Scalar`, checking its size, optionally perturbed
/// (`RoundingPerturbation.applyToParameters`) and then rounded to binary16. For `Float` without either
/// the values are used as read (no copy).
@_specialize(where Scalar == Float)
@_specialize(where Scalar == Double)
func scalarParameters<Scalar: ExecutorScalar>(
    _ tensor: WeightTensor, count: Int, role: TensorRole, layer: Layer, roundToHalf: Bool, perturbation: RoundingPerturbation? = nil
) throws -> [Scalar] {
    let values: [Float]
    do {
        values = try tensor.floats()
    } catch let error as FoldKitError {
        throw error.located(layer: layer.label)
    }
    guard values.count == count else {
        let name = layer.kind.operation.parameterName(role)
        throw FoldKitError(
            .badInput, "\(name) has the wrong number of values", file: layer.source.file,
            line: layer.source.line, layer: layer.label, expected: "\(count)", found: "\(values.count)")
    }
    if Scalar.self == Float.self && !roundToHalf && perturbation == nil {
        return unsafeBitCast(values, to: [Scalar].self)
    }
    var converted = [Scalar](unsafeUninitializedCapacity: values.count) { buffer, initialized in
        values.withUnsafeBufferPointer { source in
            for i in source.indices { buffer[i] = Scalar(source[i]) }
        }
        initialized = values.count
    }
    perturbation?.applyToParameters(&converted, layer: layer.label, role: role.rawValue)
    if roundToHalf {
        for i in converted.indices { converted[i] = converted[i].roundedToHalf() }
    }
    return converted
}
