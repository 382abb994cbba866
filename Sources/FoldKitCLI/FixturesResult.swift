import FoldKit

/// `fixtures --json`: what was written, or with `--check` the drift found (Docs/CLI.md "JSON documents").
struct FixturesResult: Encodable {
    /// The output folder (writing).
    var out: String?
    var layout: String?
    var npz: Bool?
    /// `--layers`: all, outputs or list (writing).
    var layers: String?
    /// `--onnx` (writing).
    var onnx: Bool?
    /// manifest.json as written (Docs/Fixtures.md).
    var manifest: FixtureManifest?
    /// The drift per tensor (`--check`).
    var check: FixtureChecker.Report?
    /// `--check`: no drift beyond --rtol; writing: true.
    var pass: Bool
}
