import Dispatch
import FoldKitCore

/// Folds inference batch norm into the preceding convolution or fully connected layer: the one fold
/// pass, used whole-tensor by verify, inspect and bench (`apply(to:)`) and chunk by chunk by convert
/// (`BlobWriter` asks `plan(for:reader:)` for each layer and folds each chunk of rows with it).
///
/// With s[o] = gamma[o] / sqrt(var[o] + eps)  (or gamma[o] / (sqrt(var[o]) + eps), per the convention):
///
///     W'[o, ...] = W[o, ...] * s[o]
///     b'[o]      = (beta[o] - mean[o] * s[o]) + b[o] * s[o]      (b = 0 when the layer has no bias)
///
/// Every value is computed in float64 from the float32 inputs and rounded once to float32, element by
/// element in a fixed order (`FoldPlan`), so the same input gives byte-identical output on every run and
/// platform, whole or in chunks. A batch norm that follows no foldable layer becomes a per-channel
/// `ChannelAffine` (scale s, shift beta - mean * s), which the blob writer writes and reports.
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
                Parallel.fork(count) { i in
                    do {
                        results[i] = try fold(network.layers[i].kind)
                    } catch {
                        failures[i] = located(error, in: network.layers[i])
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

    /// Folds one layer kind (identity for kinds without batch norm).
    static func fold(_ kind: LayerKind) throws -> LayerKind {
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

    /// The convolution with its batch norm folded into weights and bias (unchanged without batch norm).
    static func fold(_ c: Convolution) throws -> Convolution {
        guard let bn = c.batchNorm else { return c }
        let plan = try FoldPlan(outputs: c.outputChannels, bias: c.bias, batchNorm: bn, reader: FloatSpanReader())
        var result = c
        result.weights = try plan.folded(c.weights)
        result.bias = WeightTensor(shape: [c.outputChannels], values: plan.bias ?? [])
        result.batchNorm = nil
        return result
    }

    /// The fully connected layer with its batch norm folded into weights and bias (unchanged without).
    static func fold(_ f: FullyConnected) throws -> FullyConnected {
        guard let bn = f.batchNorm else { return f }
        let plan = try FoldPlan(outputs: f.outputCount, bias: f.bias, batchNorm: bn, reader: FloatSpanReader())
        var result = f
        result.weights = try plan.folded(f.weights)
        result.bias = WeightTensor(shape: [f.outputCount], values: plan.bias ?? [])
        result.batchNorm = nil
        return result
    }

    /// The fold plan of a convolution or fully connected layer (nil for other kinds), its bias and batch
    /// norm read through `reader`; errors name the layer. Streaming conversion folds each chunk with it.
    static func plan(for layer: Layer, reader: FloatSpanReader) throws -> FoldPlan? {
        do {
            switch layer.kind {
            case .convolution(let c):
                return try FoldPlan(outputs: c.outputChannels, bias: c.bias, batchNorm: c.batchNorm, reader: reader)
            case .fullyConnected(let f):
                return try FoldPlan(outputs: f.outputCount, bias: f.bias, batchNorm: f.batchNorm, reader: reader)
            default:
                return nil
            }
        } catch {
            throw located(error, in: layer)
        }
    }

    /// A `FoldKitError` given the layer's source file and label.
    private static func located(_ error: Error, in layer: Layer) -> Error {
        guard let error = error as? FoldKitError else { return error }
        return error.located(file: layer.source.file, layer: layer.label)
    }
}
