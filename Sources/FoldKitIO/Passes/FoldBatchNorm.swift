import Dispatch
import FoldKitCore
import FoldKitRuntime

/// The fold pass: folds inference batch norm into the preceding convolution or fully connected layer and
/// returns the folded network, which verify, inspect and bench run and convert's `BlobWriter` streams.
///
/// Given a network as read (tensors in memory or file spans), with s[o] = gamma[o] / sqrt(var[o] + eps)
/// (or gamma[o] / (sqrt(var[o]) + eps), per the convention):
///
///     W'[o, ...] = W[o, ...] * s[o]
///     b'[o]      = (beta[o] - mean[o] * s[o]) + b[o] * s[o]      (b = 0 when the layer has no bias)
///
/// It reads only the small tensors (biases and batch-norm statistics) and checks every size it relies on
/// against the layer's outputs; file-backed weights come out as folded tensors read on demand
/// (`WeightTensor.Storage.scaledFile`), so a convert streams them and nothing large is read twice. Every
/// value is computed in float64 from the float32 inputs and rounded once to float32, element by element in
/// a fixed order (`FoldPlan`, `RowScale`), so the same input gives byte-identical output on every run and
/// platform, whole or in chunks. A batch norm that follows no foldable layer becomes a per-channel
/// `ChannelAffine` (scale s, shift beta - mean * s). The result has the same layers, and no batch norm anywhere.
public enum FoldBatchNorm {
    /// Returns `network` with every batch norm folded. Layers are independent, so their small tensors are
    /// read on all cores; the error reported is the one of the earliest failing layer, naming it.
    public static func apply(to network: Network) throws -> Network {
        let count = network.layers.count
        var kinds = [LayerKind?](repeating: nil, count: count)
        var errors = [Error?](repeating: nil, count: count)
        kinds.withUnsafeMutableBufferPointer { results in
            errors.withUnsafeMutableBufferPointer { failures in
                Parallel.fork(count) { i in
                    do {
                        results[i] = try fold(network.layers[i].kind, reader: FloatSpanReader())
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

    /// Folds one layer kind (its sizes checked; identity for kinds without parameters to fold).
    package static func fold(_ kind: LayerKind, reader: FloatSpanReader) throws -> LayerKind {
        switch kind {
        case .convolution(var c):
            guard let folded = try fold(weights: c.weights, bias: c.bias, batchNorm: c.batchNorm, outputs: c.outputChannels, reader: reader)
            else { return kind }
            (c.weights, c.bias, c.batchNorm) = (folded.weights, folded.bias, nil)
            return .convolution(c)
        case .fullyConnected(var f):
            guard let folded = try fold(weights: f.weights, bias: f.bias, batchNorm: f.batchNorm, outputs: f.outputCount, reader: reader)
            else { return kind }
            (f.weights, f.bias, f.batchNorm) = (folded.weights, folded.bias, nil)
            return .fullyConnected(f)
        case .batchNorm(let bn):
            let (scale, shift) = try FoldPlan.affine(of: bn, channels: bn.channels, reader: reader)
            return .channelAffine(
                ChannelAffine(
                    scale: WeightTensor(shape: [scale.count], values: scale.map { Float($0) }),
                    shift: WeightTensor(shape: [shift.count], values: shift.map { Float($0) })))
        default:
            return kind
        }
    }

    /// The folded weights and bias of a layer with `outputs` outputs (`FoldPlan`, which checks every size
    /// first); nil when it has no batch norm, its tensors then left as they are.
    private static func fold(
        weights: WeightTensor, bias: WeightTensor?, batchNorm: BatchNorm?, outputs: Int, reader: FloatSpanReader
    ) throws -> (weights: WeightTensor, bias: WeightTensor)? {
        let plan = try FoldPlan(outputs: outputs, bias: bias, batchNorm: batchNorm, reader: reader)
        guard batchNorm != nil else { return nil }
        return (try plan.folded(weights), WeightTensor(shape: [outputs], values: plan.bias ?? []))
    }

    /// A `FoldKitError` given the layer's source file and label.
    private static func located(_ error: Error, in layer: Layer) -> Error {
        guard let error = error as? FoldKitError else { return error }
        return error.located(file: layer.source.file, layer: layer.label)
    }
}
