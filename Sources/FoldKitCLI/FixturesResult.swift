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

    private enum CodingKeys: String, CodingKey { case out, layout, npz, layers, onnx, manifest, check, pass }

    /// Every field, null when it does not apply (writing has no `check`, `--check` no `out`, `layout`, `npz`,
    /// `layers`, `onnx` or `manifest`): each document has the same top-level keys (Docs/CLI.md "JSON documents").
    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(out, forKey: .out)
        try container.encode(layout, forKey: .layout)
        try container.encode(npz, forKey: .npz)
        try container.encode(layers, forKey: .layers)
        try container.encode(onnx, forKey: .onnx)
        try container.encode(manifest, forKey: .manifest)
        try container.encode(check, forKey: .check)
        try container.encode(pass, forKey: .pass)
    }
}
