import Dispatch
import FoldKitCore

/// Wall-clock seconds per phase, for the report.
struct PhaseClock {
    private var last = DispatchTime.now()
    private(set) var laps: [VerificationReport.Timing] = []

    /// Ends the current phase, named `phase`: the time since the previous lap, less `excluding` seconds
    /// (spent inside it on work reported as another phase), plus `adding` seconds (spent earlier on this
    /// phase's work). An empty name ends a stretch of time already reported piecewise.
    mutating func lap(_ phase: String, excluding: Double = 0, adding: Double = 0) {
        let now = DispatchTime.now()
        if !phase.isEmpty {
            laps.append(.init(phase: phase, seconds: Double(now.uptimeNanoseconds - last.uptimeNanoseconds) / 1e9 - excluding + adding))
        }
        last = now
    }

    /// Adds a phase measured piecewise elsewhere.
    mutating func record(_ phase: String, seconds: Double) {
        laps.append(.init(phase: phase, seconds: seconds))
    }

    static func seconds(since start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }
}
