import Dispatch
import FoldKitCore

/// Folds inference batch norm into the preceding convolution or fully connected layer.
///
/// With s[o] = gamma[o] / sqrt(var[o] + eps)  (or gamma[o] / (sqrt(var[o]) + eps), per the convention):
///
///     W'[o, ...] = W[o, ...] * s[o]
///     b'[o]      = (beta[o] - mean[o] * s[o]) + b[o] * s[o]      (b = 0 when the layer has no bias)
///
/// Every value is computed in float64 from the float32 inputs and rounded once to float32, element by
/// element in a fixed order, so the same input gives byte-identical output on every run and platform.
/// A batch norm that follows no foldable layer becomes a per-channel `ChannelAffine` (scale s, shift
/// beta - mean * s), which the blob writer writes and reports.
public enum FoldBatchNorm {
    /// Returns `network` with every batch norm folded; the result has no `batchNorm` anywhere.
    /// Layers are independent, so they are read and folded on all cores; each result is the same as
    /// `fold(_:)` gives on its own (the arithmetic per layer does not change), and the error reported
    /// is the one of the earliest failing layer.
    public static func apply(to network: Network) throws -> Network {
        let count = network.layers.count
        var kinds = [LayerKind?](repeating: nil, count: count)
        var errors = [Error?](repeating: nil, count: count)
        kinds.withUnsafeMutableBufferPointer { results in
            errors.withUnsafeMutableBufferPointer { failures in
                DispatchQueue.concurrentPerform(iterations: count) { i in
                    do {
                        results[i] = try fold(network.layers[i].kind)
                    } catch let error as FoldKitError {
                        failures[i] = error.located(file: network.layers[i].source.file, layer: network.layers[i].label)
                    } catch {
                        failures[i] = error
                    }
                }
            }
        }
        if let error = errors.lazy.compactMap({ $0 }).first { throw error }
        var folded = network
        for i in 0..<count {
            if let kind = kinds[i] { folded.layers[i].kind = kind }
        }
        return folded
    }

    /// Folds one layer kind (identity for kinds without batch norm). Used per layer by streaming conversion.
    public static func fold(_ kind: LayerKind) throws -> LayerKind {
        switch kind {
        case .convolution(let c): return .convolution(try fold(c))
        case .fullyConnected(let f): return .fullyConnected(try fold(f))
        case .batchNorm(let bn):
            let (scale, shift) = try bn.affine()
            return .channelAffine(ChannelAffine(
                scale: WeightTensor(shape: [scale.count], values: scale.map { Float($0) }),
                shift: WeightTensor(shape: [shift.count], values: shift.map { Float($0) })))
        default: return kind
        }
    }

    public static func fold(_ c: Convolution) throws -> Convolution {
        guard let bn = c.batchNorm else { return c }
        var result = c
        let (weights, bias) = try foldedParameters(weights: c.weights, bias: c.bias, outputs: c.outputChannels, batchNorm: bn)
        result.weights = weights
        result.bias = bias
        result.batchNorm = nil
        return result
    }

    public static func fold(_ f: FullyConnected) throws -> FullyConnected {
        guard let bn = f.batchNorm else { return f }
        var result = f
        let (weights, bias) = try foldedParameters(weights: f.weights, bias: f.bias, outputs: f.outputCount, batchNorm: bn)
        result.weights = weights
        result.bias = bias
        result.batchNorm = nil
        return result
    }

    /// One folded weight, the only rounding: Float(Double(w) * s).
    @inline(__always)
    public static func foldedWeight(_ w: Float, scale s: Double) -> Float { Float(Double(w) * s) }

    /// Folded biases b'[o] = Float(shift[o] + Double(b[o]) * scale[o]) with (scale, shift) from
    /// `BatchNorm.affine()`, i.e. (beta - mean * s) + b * s; b = 0 when the layer has no bias.
    public static func foldedBias(_ bias: [Float]?, scale: [Double], shift: [Double]) -> [Float] {
        (0..<scale.count).map { o in Float(shift[o] + Double(bias?[o] ?? 0) * scale[o]) }
    }

    /// The shared arithmetic: weights are [outputs][rest] row-major, scaled row by row.
    private static func foldedParameters(
        weights: WeightTensor, bias: WeightTensor?, outputs: Int, batchNorm: BatchNorm
    ) throws -> (WeightTensor, WeightTensor) {
        guard batchNorm.channels == outputs else {
            throw FoldKitError(.badInput, "batch norm size does not match the layer's outputs", expected: "\(outputs)", found: "\(batchNorm.channels)")
        }
        let (scale, shift) = try batchNorm.affine()
        var w = try weights.floats()
        let perOutput = outputs > 0 ? w.count / outputs : 0
        for o in 0..<outputs {
            let s = scale[o]
            let base = o * perOutput
            for k in 0..<perOutput {
                w[base + k] = foldedWeight(w[base + k], scale: s)
            }
        }
        let newBias = foldedBias(try bias?.floats(), scale: scale, shift: shift)
        return (WeightTensor(shape: weights.shape, values: w), WeightTensor(shape: [outputs], values: newBias))
    }
}
