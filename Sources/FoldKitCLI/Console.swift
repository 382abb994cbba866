import FoldKit
import Foundation

/// Where a command's output goes: results on stdout, errors and progress on stderr.
///
/// - text results (`say`) go to stdout unless `--quiet` or `--json` is given (with `--json` stdout holds
///   exactly one JSON document, `document`);
/// - progress lines go to stderr on a terminal only (`ProgressLine`), never with `--quiet` or `--json`.
struct Console {
    var quiet: Bool
    var json: Bool

    /// Progress lines may be shown (on a terminal; `ProgressLine` decides that).
    var showsProgress: Bool { !quiet && !json }

    /// A line of the text result.
    func say(_ text: String) {
        guard !quiet && !json else { return }
        print(text)
    }

    /// The verdict line of a check ("PASS: ...", "FAIL: ..."), green or red on a colour terminal.
    func verdict(_ text: String, pass: Bool) {
        guard !quiet && !json else { return }
        print(TerminalStyle.standardOutput.paint(text, pass ? .green : .red))
    }

    /// The JSON document (with `--json`; also printed under `--quiet`, which only silences text).
    func document<T: Encodable>(_ value: T) throws {
        guard json else { return }
        FileHandle.standardOutput.write(try JSONOutput.encode(value) + Data("\n".utf8))
    }

    /// A `note: ...` line on stderr (not under `--quiet`; also with `--json`, whose document is on stdout).
    func note(_ text: String) {
        guard !quiet else { return }
        FileHandle.standardError.write(Data("note: \(text)\n".utf8))
    }

    /// How an `--input` array was converted to float32, when it was (float64 or float16 files).
    func note(_ input: ModelInput) {
        if let file = input.file, let conversion = file.note { note("input \(file.path): \(conversion)") }
    }

    /// A `ProgressLine` that stays silent unless progress may be shown.
    func progressLine(_ label: String) -> ProgressLine {
        ProgressLine(label, enabled: showsProgress ? nil : false)
    }
}
