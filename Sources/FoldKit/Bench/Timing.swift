import Foundation

/// Wall-clock timing of repeated runs: the minimum and median of `runs` timed calls after `warmup`
/// untimed ones (the minimum is the figure least disturbed by other load on the machine).
public struct Timing: Sendable, Codable {
    /// The fastest run, seconds.
    public var minimum: Double
    /// The median run, seconds.
    public var median: Double
    /// Runs measured (after the warm-up).
    public var runs: Int

    /// Runs `body` `warmup` times unmeasured, then `runs` times measured.
    public static func measure(runs: Int, warmup: Int = 1, _ body: () throws -> Void) rethrows -> Timing {
        for _ in 0..<warmup { try body() }
        var seconds: [Double] = []
        for _ in 0..<max(runs, 1) {
            let start = DispatchTime.now().uptimeNanoseconds
            try body()
            seconds.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        seconds.sort()
        return Timing(minimum: seconds[0], median: seconds[seconds.count / 2], runs: seconds.count)
    }
}
