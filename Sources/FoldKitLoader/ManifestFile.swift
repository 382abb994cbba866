/// manifest.json as written by `foldkit convert` (Docs/BlobFormat.md "manifest.json"), decoded.
struct ManifestFile: Decodable {
    /// One `tensors[]` entry.
    struct Tensor: Decodable {
        var name: String
        var layer: Int
        var role: BlobTensorRole
        var file: String
        var shape: [Int]
        var layout: String
        var dtype: String
        var byteCount: Int
        var sha256: String
    }

    var format: String
    var version: Int
    var source: BlobSource
    var layers: [BlobLayer]
    var tensors: [Tensor]
}
