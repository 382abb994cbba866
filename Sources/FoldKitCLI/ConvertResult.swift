import FoldKit
import FoldKitBlobFormat

/// `convert --json`: what was written (Docs/CLI.md "JSON documents").
struct ConvertResult: Encodable {
    /// The output folder.
    var out: String
    var blobs: Int
    var bytes: Int
    /// ohwi, oihw or hwio.
    var layout: String
    /// Layers whose batch norm was folded into their weights and bias.
    var foldedBatchNormLayers: [Int]
    /// Layers whose batch norm was kept as per-channel scale and shift (nothing to fold it into).
    var scaleShiftLayers: [Int]
    var bnEpsilon: Double
    /// "inside" (sqrt(var + eps)) or "outside" (sqrt(var) + eps).
    var bnEpsilonMode: String
    var seconds: Double
    /// manifest.json as written (Docs/BlobFormat.md).
    var manifest: BlobManifest
}
