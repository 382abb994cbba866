import ArgumentParser
import FoldKit
import Foundation

/// `foldkit cli-reference` (hidden): prints the generated part of Docs/CLI.md (`CLIReference`), or with
/// `--write FILE` replaces it in that file.
struct CLIReferenceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cli-reference",
        abstract: "Print every command's --help as the markdown Docs/CLI.md holds, or update it there with --write.",
        shouldDisplay: false)

    @Option(help: "Replace the generated part of this markdown file (between its markers).")
    var write: String?

    func run() throws {
        guard let write else {
            print(CLIReference.markdown())
            return
        }
        let url = URL(fileURLWithPath: write)
        guard let document = try? String(contentsOf: url, encoding: .utf8) else {
            throw FoldKitError(.io, "cannot read the markdown file", file: write)
        }
        guard let updated = CLIReference.splice(into: document) else {
            throw FoldKitError(
                .badInput, "markers of the generated part not found", file: write,
                expected: "\(CLIReference.begin) ... \(CLIReference.end)")
        }
        do { try Data(updated.utf8).write(to: url, options: .atomic) } catch {
            throw FoldKitError(.io, "cannot write: \(error.localizedDescription)", file: write)
        }
    }
}
