import ArgumentParser
import Foundation

/// The command reference in Docs/CLI.md, rendered from the same source as `--help`: every visible
/// command's help text (`helpMessage`, 100 columns) in a fenced block, between the markers
/// `<!-- BEGIN GENERATED HELP -->` and `<!-- END GENERATED HELP -->`. `foldkit cli-reference --write
/// Docs/CLI.md` rewrites that part; a test regenerates it and fails with a diff when it is stale.
enum CLIReference {
    static let begin = "<!-- BEGIN GENERATED HELP (foldkit cli-reference --write Docs/CLI.md) -->"
    static let end = "<!-- END GENERATED HELP -->"
    static let columns = 100

    /// The visible commands, root first.
    static var commands: [(name: String, type: ParsableCommand.Type)] {
        [("foldkit", FoldKitCommand.self)]
            + FoldKitCommand.configuration.subcommands
            .filter { $0.configuration.shouldDisplay }
            .map { ("foldkit \($0.configuration.commandName ?? "")", $0) }
    }

    /// The generated part, markers included.
    static func markdown() -> String {
        var lines = [begin, ""]
        for (name, type) in commands {
            let help =
                type == FoldKitCommand.self
                ? FoldKitCommand.helpMessage(columns: columns)
                : FoldKitCommand.helpMessage(for: type, columns: columns)
            lines += ["### `\(name) --help`", "", "```text"]
            lines += help.split(separator: "\n", omittingEmptySubsequences: false).map { String($0).trailingSpacesRemoved }
            while lines.last == "" { lines.removeLast() }
            lines += ["```", ""]
        }
        lines.append(end)
        return lines.joined(separator: "\n")
    }

    /// `document` with its generated part replaced by `markdown()`; nil when the markers are missing.
    static func splice(into document: String) -> String? {
        guard let start = document.range(of: begin), let stop = document.range(of: end, range: start.upperBound..<document.endIndex) else {
            return nil
        }
        return document.replacingCharacters(in: start.lowerBound..<stop.upperBound, with: markdown())
    }
}

extension String {
    fileprivate var trailingSpacesRemoved: String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
