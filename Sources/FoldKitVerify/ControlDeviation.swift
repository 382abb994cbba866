import FoldKitCore
import FoldKitRuntime

/// How far the control run (the original, unfolded network in the candidate's precision) is from the
/// float64 reference at one layer: what that precision by itself costs on this network and input.
///
///     maxAbsDeviation   = max_i |control_i - reference_i|        (output units)
///     relativeDeviation = maxAbsDeviation / max_i |reference_i|  (0 when both are 0)
///
/// NaN or infinity in either where the other is finite counts as an infinite deviation.
public struct ControlDeviation: Codable, Equatable, Sendable {
    /// max_i |control_i - reference_i|, output units.
    public var maxAbsDeviation: Double
    /// maxAbsDeviation / max_i |reference_i|.
    public var relativeDeviation: Double

    /// The deviations as measured.
    public init(maxAbsDeviation: Double, relativeDeviation: Double) {
        self.maxAbsDeviation = maxAbsDeviation
        self.relativeDeviation = relativeDeviation
    }

    /// Measures `control` against `reference`, both channel-major; `maxAbsReference` is the layer's
    /// max |reference| (from `LayerDeviation`). One pass, split across the cores for large layers.
    @_specialize(where R == Double, C == Float)
    @_specialize(where R == Double, C == Double)
    public static func measure<R: BinaryFloatingPoint, C: BinaryFloatingPoint>(
        reference: [R], control: [C], maxAbsReference: Double
    ) -> ControlDeviation {
        let n = min(reference.count, control.count)
        var maxDev = reference.count == control.count ? 0.0 : .infinity
        reference.withUnsafeBufferPointer { ref in
            control.withUnsafeBufferPointer { ctl in
                let chunks = n >= Parallel.minimumParallelWork ? Parallel.workerCount : 1
                var partial = [Double](repeating: 0, count: chunks)
                partial.withUnsafeMutableBufferPointer { partial in
                    let results = partial
                    Parallel.forEach(chunks, totalWork: n) { chunk in
                        var m = 0.0
                        for i in (n * chunk / chunks)..<(n * (chunk + 1) / chunks) {
                            m = max(m, elementDeviation(Double(ref[i]), Double(ctl[i])))
                        }
                        results[chunk] = m
                    }
                }
                maxDev = max(maxDev, partial.max() ?? 0)
            }
        }
        return ControlDeviation(
            maxAbsDeviation: maxDev,
            relativeDeviation: maxAbsReference > 0 ? maxDev / maxAbsReference : (maxDev == 0 ? 0 : .infinity))
    }
}
