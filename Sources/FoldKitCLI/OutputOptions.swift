import ArgumentParser

/// `--json` and `--quiet`, shared by the commands that have a result (convert, fixtures, inspect; verify
/// takes `--json FILE|-` and `--quiet` itself). See Docs/CLI.md "Conventions".
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print the result as one JSON document on stdout instead of text (schema: Docs/CLI.md).")
    var json = false

    @Flag(name: .shortAndLong, help: "Print nothing but errors (on stderr); the exit code tells the outcome.")
    var quiet = false

    /// Where text, progress and the JSON document go.
    var console: Console { Console(quiet: quiet, json: json) }
}
