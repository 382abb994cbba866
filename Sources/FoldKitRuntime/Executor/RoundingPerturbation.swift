import FoldKitCore

/// A seeded random perturbation of every layer output and parameter, as if each value had been rounded
/// once more: a run with it is another sample of what the precision's rounding does to the network
/// (Monte Carlo arithmetic, Parker 1997; Verificarlo), used by `verify` to tell elements that float32
/// itself cannot resolve from a fold error (`ConditioningCheck`).
///
/// Element i of layer L's output x becomes, before the storage rounding of `ExecutorOptions.float16Storage`:
///
///     x_i * (1 + relative * (2 * unit_i - 1)),   unit_i uniform in [0, 1)
///
/// computed in float64 and rounded to the pass's scalar, with `unit_i` the i-th draw of a SplitMix64
/// stream seeded with `seed + (L + 1) * 0xD1B54A32D192ED03` (one stream per layer, so a layer's
/// perturbation does not depend on how many layers ran before it). The network input is not perturbed:
/// it is given, not computed.
public struct RoundingPerturbation: Sendable, Equatable {
    /// Seeds the per-layer streams.
    public var seed: UInt64
    /// The largest relative change. `verify` uses 2u (2^-23 for float32, 2^-10 for float16 storage): one
    /// to two units in the last place of the value (by where it lies in its binade), so that after the
    /// rounding back most values land on a neighbouring representable number.
    public var relative: Double

    /// A perturbation of up to `relative` (a fraction of each value), seeded with `seed`.
    public init(seed: UInt64, relative: Double) {
        self.seed = seed
        self.relative = relative
    }

    /// Perturbs a layer's parameter tensor (weights, biases, scales and shifts the layer multiplies or adds;
    /// batch-norm statistics of unfolded layers are kept as read, as with float16 storage) in place, as if each had been rounded once more: the folded network's parameters are the original
    /// ones rounded differently, so a perturbed run samples that too. The stream is seeded with
    /// `seed + FNV-1a(layer label + "/" + role)`, the same whichever order the layers are prepared in.
    package func applyToParameters<Scalar: ExecutorScalar>(_ values: inout [Scalar], layer: String, role: String) {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in (layer + "/" + role).utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        var generator = SplitMix64(seed: seed &+ hash)
        for i in values.indices {
            values[i] = Scalar(Double(values[i]) * (1 + relative * (2 * generator.nextUnit() - 1)))
        }
    }

    /// Perturbs layer `layer`'s output in place (split across the cores for large outputs).
    @_specialize(where Scalar == Float)
    @_specialize(where Scalar == Double)
    package func apply<Scalar: ExecutorScalar>(to values: inout [Scalar], layer: Int) {
        let layerSeed = seed &+ UInt64(layer + 1) &* 0xD1B5_4A32_D192_ED03
        let relative = relative
        values.withUnsafeMutableBufferPointer { buffer in
            Parallel.forRanges(buffer.count, totalWork: buffer.count) { range in
                // The stream's i-th draw: SplitMix64 advances its state by one constant per draw.
                var generator = SplitMix64(seed: layerSeed &+ UInt64(range.lowerBound) &* 0x9E37_79B9_7F4A_7C15)
                for i in range {
                    let unit = generator.nextUnit()
                    buffer[i] = Scalar(Double(buffer[i]) * (1 + relative * (2 * unit - 1)))
                }
            }
        }
    }
}
