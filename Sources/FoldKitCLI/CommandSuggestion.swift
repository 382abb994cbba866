import ArgumentParser

/// An unknown command word (`foldkit convrt ...`) answered with the nearest commands by edit distance,
/// before ArgumentParser parses it. swift-argument-parser 1.8.2 suggests near option names ("Did you mean
/// '--layout'?") but not near subcommands: for the root command, which takes no arguments of its own, an
/// unknown first word is reported as "N unexpected arguments".
enum CommandSuggestion {
    /// Names of the commands a user can type (hidden ones included: they run too) and `help`.
    static var commandNames: [String] {
        FoldKitCommand.configuration.subcommands.compactMap { $0.configuration.commandName } + ["help"]
    }

    /// The error message for `arguments` when its first word is neither an option nor a command; nil
    /// when parsing should go on. Suggests every command at the smallest Levenshtein distance when it is
    /// at most 2 or a third of the word's length, whichever is more, or a command the word is a prefix of.
    static func message(for arguments: [String]) -> String? {
        guard let word = arguments.first, !word.hasPrefix("-"), !commandNames.contains(word) else { return nil }
        let visible = FoldKitCommand.configuration.subcommands.filter { $0.configuration.shouldDisplay }.compactMap { $0.configuration.commandName }
        let limit = max(2, word.count / 3)
        let distances = visible.map { (name: $0, distance: editDistance(word.lowercased(), $0)) }
        let best = distances.map(\.distance).min() ?? .max
        var near = best <= limit ? distances.filter { $0.distance == best }.map(\.name) : []
        if near.isEmpty { near = visible.filter { $0.hasPrefix(word.lowercased()) } }
        let suggestion =
            near.isEmpty ? "" : "; did you mean " + near.map { "'\($0)'" }.joined(separator: " or ") + "?"
        return "unknown command '\(word)'\(suggestion) (commands: \(visible.joined(separator: ", ")); see 'foldkit --help')"
    }

    /// The Levenshtein distance: the fewest single-character insertions, deletions and substitutions
    /// turning `a` into `b` (two rows of the usual dynamic-programming table).
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}
