/// The version of FoldKit and of the `foldkit` command: what `foldkit --version` prints and what the
/// `--json` documents and the verify audit page name as the tool version (Docs/CLI.md). Semantic
/// versioning: major.minor.patch.
package enum FoldKitVersion {
    package static let string = "1.0.0"
}
