import FoldKitTestSupport
import Foundation

/// The machine-checked tables of Docs/CLI.md: a markdown table right after a marker comment
/// (`<!-- json-keys: convert -->`, `<!-- progress-lines -->`), read as rows of cells.
enum DocumentedTables {
    static var page: String {
        get throws { try String(contentsOf: TestData.repositoryRoot.appendingPathComponent("Docs/CLI.md"), encoding: .utf8) }
    }

    /// The rows (cells, trimmed) of the table after `marker`, header and separator left out; nil when the
    /// marker is not on the page.
    static func rows(after marker: String, in page: String) -> [[String]]? {
        guard let start = page.range(of: marker) else { return nil }
        var rows: [[String]] = []
        var started = false
        for line in page[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false).dropFirst() {
            let text = line.trimmingCharacters(in: .whitespaces)
            guard text.hasPrefix("|") else {
                if started || !text.isEmpty { break } else { continue }
            }
            started = true
            rows.append(
                text.dropFirst().dropLast().split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) })
        }
        return Array(rows.dropFirst(2))
    }

    /// The `code` spans of a cell, in order.
    static func codeSpans(_ cell: String) -> [String] {
        cell.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    /// The JSON keys documented after `<!-- json-keys: name -->`: the code spans of each row's first cell.
    static func jsonKeys(_ name: String, in page: String) -> Set<String>? {
        rows(after: "<!-- json-keys: \(name) -->", in: page).map { Set($0.flatMap { codeSpans($0.first ?? "") }) }
    }
}
