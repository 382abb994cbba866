import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reports the layers of a pass of long work as they finish: (pass, layers done, layer count). Commands
/// show it with one `ProgressLine` per pass.
public typealias LayerProgress = (_ pass: String, _ done: Int, _ total: Int) -> Void

/// A one-line progress display on standard error for long work (big models).
///
/// It draws only when standard error is a terminal and the `CI` environment variable is unset, so
/// pipes, logs and CI stay quiet. Redraws are limited to about ten a second.
public final class ProgressLine {
    private let enabled: Bool
    private let label: String
    private let start = Date()
    private var lastDraw = Date.distantPast
    private var drewSomething = false

    /// A progress line titled `label`; shown when `enabled`, or by default when standard error is an interactive terminal.
    public init(_ label: String, enabled: Bool? = nil) {
        self.label = label
        self.enabled = enabled ?? ProgressLine.isInteractive
    }

    /// True when standard error is a terminal and not running under CI.
    static var isInteractive: Bool {
        isatty(STDERR_FILENO) == 1 && ProcessInfo.processInfo.environment["CI"] == nil
    }

    /// Shows `done`/`total` steps and, when given, megabytes processed and the rate in MB/s.
    public func update(done: Int, total: Int, bytes: Int? = nil) {
        guard enabled else { return }
        let now = Date()
        guard done == total || now.timeIntervalSince(lastDraw) > 0.1 else { return }
        lastDraw = now
        var text = "\r\(label): \(done)/\(total) layers"
        if let bytes {
            let mb = Double(bytes) / 1_000_000
            let seconds = max(now.timeIntervalSince(start), 1e-9)
            text += String(format: ", %.1f MB, %.0f MB/s", mb, mb / seconds)
        }
        FileHandle.standardError.write(Data((text + "   ").utf8))
        drewSomething = true
    }

    /// Ends the line so later output starts on a fresh one.
    public func finish() {
        guard enabled, drewSomething else { return }
        FileHandle.standardError.write(Data("\n".utf8))
    }
}
