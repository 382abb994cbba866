import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// ANSI colour for the few words worth colouring (PASS, FAIL, "error:"), used only when the stream is
/// a terminal, `NO_COLOR` is unset or empty (https://no-color.org) and `TERM` is not "dumb".
struct TerminalStyle {
    enum Color: String {
        case red = "31"
        case green = "32"
    }

    var usesColor: Bool

    static var standardOutput: TerminalStyle {
        TerminalStyle(usesColor: usesColor(isTerminal: isatty(STDOUT_FILENO) == 1, environment: ProcessInfo.processInfo.environment))
    }

    static var standardError: TerminalStyle {
        TerminalStyle(usesColor: usesColor(isTerminal: isatty(STDERR_FILENO) == 1, environment: ProcessInfo.processInfo.environment))
    }

    /// Colour only on a terminal, without `NO_COLOR` (any non-empty value) and with a `TERM` other than "dumb".
    static func usesColor(isTerminal: Bool, environment: [String: String]) -> Bool {
        guard isTerminal else { return false }
        if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
        return environment["TERM"] != "dumb"
    }

    /// `text` in `color` (bold), reset after it; `text` unchanged without colour.
    func paint(_ text: String, _ color: Color) -> String {
        usesColor ? "\u{1B}[1;\(color.rawValue)m\(text)\u{1B}[0m" : text
    }
}
