import Foundation

/// Per-layer wall times of an `Executor`'s forward pass: each layer's time is the time of its
/// `ExecutorPass.next()` call (the kernel plus the output array's allocation and release of inputs no
/// later layer reads), and `seconds[i]` is the minimum over `runs` passes after one warm-up pass.
/// The counterpart of OpenCV's `net.getPerfProfile()`, for finding where a small network loses time.
public struct LayerProfile: Sendable {
    /// Minimum wall time of each layer, in seconds, indexed by layer index.
    public var seconds: [Double]
    /// Minimum wall time of a whole pass (not the sum of `seconds`: each layer's minimum may come from a different pass).
    public var passSeconds: Double

    public static func measure<Scalar: ExecutorScalar>(_ executor: Executor<Scalar>, input: [Scalar], runs: Int) throws -> LayerProfile {
        let count = executor.network.layers.count
        var seconds = [Double](repeating: .infinity, count: count)
        var passSeconds = Double.infinity
        for run in 0...max(runs, 1) {
            let pass = try executor.start(input: input, retention: .outputsOnly)
            let passStart = DispatchTime.now().uptimeNanoseconds
            var start = passStart
            while let (index, _) = try pass.next() {
                let end = DispatchTime.now().uptimeNanoseconds
                if run > 0 { seconds[index] = min(seconds[index], Double(end - start) / 1e9) }
                start = end
            }
            if run > 0 { passSeconds = min(passSeconds, Double(start - passStart) / 1e9) }
        }
        return LayerProfile(seconds: seconds, passSeconds: passSeconds)
    }
}
