import FoldKitCore
import Foundation

/// The value distributions `DarknetSeededWeights` draws from, by tensor role. Every draw comes from one
/// SplitMix64 stream in file order (u = uniform in [0, 1), see `SplitMix64.nextUnit`); a normal value
/// takes two draws (Box-Muller, cosine branch):
///
///     z = sqrt(-2 ln(1 - u1)) * cos(2 pi u2)          (u1 drawn first)
///
/// fan_in = (c / groups) * size * size for convolutions, c * size * size for [local], the input count for [connected].
///
/// - `uniform` (the default): bias / beta U(-0.1, 0.1); gamma U(0.5, 1.5); rolling mean U(-0.1, 0.1);
///   rolling variance U(0.5, 1.5); weights U(-a, a), a = sqrt(3 / fan_in). One draw per float.
/// - `he`: weights N(0, sqrt(2 / fan_in)) (He-normal); biases of layers without batch norm 0 (no draw);
///   beta N(0, 0.1); gamma U(0.5, 1.5); rolling mean N(0, 0.5); rolling variance U(0.2, 2). Batch-norm
///   statistics are drawn independently of the activations they will normalise, as in an untrained file.
/// - `wide`: weights U(-a, a), a = sqrt(6 / fan_in) (He-uniform); biases of layers without batch norm
///   U(-0.1, 0.1); beta U(-0.5, 0.5); rolling mean U(-1, 1); rolling variance 10^U(-8, 1) (`pow(10, -8 + 9u)`), so most channels
///   have the near-zero variances of trained files' dead channels (1e-8 ... 1e-3), where the batch-norm
///   epsilon decides the scale; gamma = g * sqrt(variance + 1e-5) with g U(0.5, 1.5) drawn in gamma's file
///   position (the variance it needs is drawn later in the file and applied once the layer's tensors are
///   drawn), so each channel's multiplier gamma / sqrt(variance + 1e-5) is g and activations neither
///   explode nor vanish across deep networks.
public enum DarknetWeightGenerator: String, CaseIterable, Sendable {
    case uniform, he, wide

    /// The epsilon `wide` couples gamma to variance with (Darknet's, inside the root).
    public static let wideEpsilon = 1e-5

    /// Draws the values of one layer's tensors, in file order. `tensors` are the layer's planned tensors
    /// (role, count, fan_in); the result has one array per tensor.
    func drawLayer(_ tensors: [(role: TensorRole, count: Int, fanIn: Int)], from generator: inout SplitMix64) -> [[Float]] {
        let hasBatchNorm = tensors.contains { $0.role == .gamma }
        var values: [[Float]] = []
        values.reserveCapacity(tensors.count)
        for tensor in tensors {
            // A plain loop into preallocated storage: the same draws in the same order as one `draw` call
            // per element, without a closure per element (which dominates in unoptimised builds).
            values.append(
                [Float](unsafeUninitializedCapacity: tensor.count) { buffer, initialized in
                    for i in 0..<tensor.count {
                        buffer[i] = draw(tensor.role, fanIn: tensor.fanIn, hasBatchNorm: hasBatchNorm, from: &generator)
                    }
                    initialized = tensor.count
                })
        }
        if self == .wide, let g = tensors.firstIndex(where: { $0.role == .gamma }),
            let v = tensors.firstIndex(where: { $0.role == .variance }), values[g].count == values[v].count
        {
            for c in values[g].indices {
                values[g][c] = Float(Double(values[g][c]) * (Double(values[v][c]) + Self.wideEpsilon).squareRoot())
            }
        }
        return values
    }

    private func draw(_ role: TensorRole, fanIn: Int, hasBatchNorm: Bool, from generator: inout SplitMix64) -> Float {
        let fan = Double(max(fanIn, 1))
        switch (self, role) {
        case (.uniform, .bias), (.uniform, .mean): return generator.nextFloat(in: -0.1, 0.1)
        case (.uniform, .gamma), (.uniform, .variance): return generator.nextFloat(in: 0.5, 1.5)
        case (.uniform, .weights):
            let a = (3.0 / fan).squareRoot()
            return generator.nextFloat(in: -a, a)
        case (.he, .weights): return Float(Self.normal(&generator) * (2.0 / fan).squareRoot())
        case (.he, .bias): return hasBatchNorm ? Float(Self.normal(&generator) * 0.1) : 0
        case (.he, .gamma): return generator.nextFloat(in: 0.5, 1.5)
        case (.he, .mean): return Float(Self.normal(&generator) * 0.5)
        case (.he, .variance): return generator.nextFloat(in: 0.2, 2)
        case (.wide, .weights):
            let a = (6.0 / fan).squareRoot()
            return generator.nextFloat(in: -a, a)
        case (.wide, .bias): return hasBatchNorm ? generator.nextFloat(in: -0.5, 0.5) : generator.nextFloat(in: -0.1, 0.1)
        case (.wide, .gamma): return generator.nextFloat(in: 0.5, 1.5)
        case (.wide, .mean): return generator.nextFloat(in: -1, 1)
        case (.wide, .variance):
            let exponent = -8 + 9 * generator.nextUnit()
            return Float(pow(10, exponent))
        case (_, .beta), (_, .scale), (_, .shift), (_, .alpha):
            return 0  // not in a .weights file: Darknet's biases are the batch norm's beta
        }
    }

    /// A standard normal value from two uniform draws (Box-Muller, cosine branch).
    static func normal(_ generator: inout SplitMix64) -> Double {
        let u1 = generator.nextUnit(), u2 = generator.nextUnit()
        return (-2 * log(1 - u1)).squareRoot() * cos(2 * Double.pi * u2)
    }
}
