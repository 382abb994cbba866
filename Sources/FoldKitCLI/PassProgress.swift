import FoldKit

/// A progress line per pass of a multi-pass command (`verify`, `fixtures`): "verify: <pass>: done/total layers" on a
/// terminal (`ProgressLine`, silent in pipes and CI), each pass's line ended when the next one starts.
final class PassProgress {
    private let command: String
    private let enabled: Bool
    private var current: (pass: String, line: ProgressLine)?

    /// `enabled: false` keeps it silent (`--quiet`, `--json`); otherwise it draws on a terminal only.
    init(_ command: String, enabled: Bool = true) {
        self.command = command
        self.enabled = enabled
    }

    func update(pass: String, done: Int, total: Int) {
        if current?.pass != pass {
            current?.line.finish()
            current = (pass, ProgressLine("\(command): \(pass)", enabled: enabled ? nil : false))
        }
        current?.line.update(done: done, total: total)
    }

    func finish() {
        current?.line.finish()
        current = nil
    }
}
