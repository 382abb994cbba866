import Foundation

/// Per-layer times of an `Executor`'s forward pass: each layer's time is the time of its
/// `ExecutorPass.next()` call (the kernel plus the output array's allocation and the release of inputs no
/// later layer reads), the minimum over `runs` passes after one warm-up pass.
/// The counterpart of OpenCV's `net.getPerfProfile()`, for finding where a small network loses time.
///
/// Two clocks: wall time, and the process's CPU time (all threads, `CLOCK_PROCESS_CPUTIME_ID`), which
/// other processes on a loaded machine disturb far less. CPU time / wall time is how many cores a layer kept busy.
package struct LayerProfile: Sendable {
    /// Minimum wall time of each layer, in seconds, indexed by layer index.
    package var seconds: [Double]
    /// Minimum CPU time (all threads) of each layer, in seconds, indexed by layer index.
    package var cpuSeconds: [Double]
    /// Minimum wall time of a whole pass (not the sum of `seconds`: each layer's minimum may come from a different pass).
    package var passSeconds: Double

    package static func measure<Scalar: ExecutorScalar>(_ executor: Executor<Scalar>, input: [Scalar], runs: Int) throws -> LayerProfile {
        let count = executor.network.layers.count
        var seconds = [Double](repeating: .infinity, count: count)
        var cpuSeconds = [Double](repeating: .infinity, count: count)
        var passSeconds = Double.infinity
        for run in 0...max(runs, 1) {
            let pass = try executor.start(input: input, retention: .outputsOnly)
            let passStart = DispatchTime.now().uptimeNanoseconds
            var start = passStart
            var cpuStart = processCPUSeconds()
            while let (index, _) = try pass.next() {
                let end = DispatchTime.now().uptimeNanoseconds
                let cpuEnd = processCPUSeconds()
                if run > 0 {
                    seconds[index] = min(seconds[index], Double(end - start) / 1e9)
                    cpuSeconds[index] = min(cpuSeconds[index], cpuEnd - cpuStart)
                }
                start = end
                cpuStart = cpuEnd
            }
            if run > 0 { passSeconds = min(passSeconds, Double(start - passStart) / 1e9) }
        }
        return LayerProfile(seconds: seconds, cpuSeconds: cpuSeconds, passSeconds: passSeconds)
    }

    /// CPU time used so far by all of this process's threads, in seconds.
    static func processCPUSeconds() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
    }
}
