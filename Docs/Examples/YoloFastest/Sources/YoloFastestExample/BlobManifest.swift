import Foundation

/// The part of `manifest.json` (FoldKit Docs/BlobFormat.md) this example reads: the source model and
/// one entry per blob file. Unknown keys are ignored, so newer manifests still decode.
struct BlobManifest: Decodable {
    struct Source: Decodable {
        let format: String
        let files: [String]
    }

    struct Layer: Decodable {
        let index: Int
        let type: String
    }

    /// One little-endian float32 file: `shape` in `layout` (OHWI, OIHW, HWIO for 4-D weights; C for
    /// vectors), `byteCount` = 4 x the product of `shape`.
    struct Tensor: Decodable {
        let name: String
        let layer: Int
        let role: String
        let file: String
        let shape: [Int]
        let layout: String
        let dtype: String
        let byteCount: Int
    }

    let format: String
    let version: Int
    let source: Source
    let layers: [Layer]
    let tensors: [Tensor]
}
