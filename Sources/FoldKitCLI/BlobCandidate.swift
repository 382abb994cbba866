import FoldKit
import Foundation

/// What `verify --blobs` judges: the network re-read from a blob folder, with the problems found on the way
/// and the digests the reader already computed.
struct BlobCandidate {
    /// The network the blobs describe (folded).
    var network: Network
    /// Whether the blobs are float16: the fold is then judged in float32 (the model folded again), every blob
    /// value checked against that fold rounded to float16 (`HalfBlobCheck`), and the float16-storage pass runs
    /// on the blob values.
    var float16: Bool
    /// Blob problems: wrong checksums, float16 values that are not the fold rounded.
    var problems: [BlobReader.Problem]
    /// manifest.json's digest (named as the user named the folder) and the source files' digests by path.
    var manifestDigest: FileDigest
    var sourceDigests: [String: String]

    /// Reads the blob folder `folder` for `original`. A missing blob file is an I/O error; blobs that cannot
    /// form a network print their problems and fail the check (`CheckFailed`).
    static func read(folder: String, original: Network, console: Console) throws -> BlobCandidate {
        let result = try BlobReader.read(folder: URL(fileURLWithPath: folder), model: original)
        var problems = result.problems
        var manifest = result.manifestDigest
        manifest.path = (folder as NSString).appendingPathComponent("manifest.json")  // as the user named the folder
        if let missing = problems.first(where: \.missing) {
            throw FoldKitError(
                .io, "blob file is missing for tensor \(missing.tensor)", file: URL(fileURLWithPath: folder).appendingPathComponent(missing.file).path
            )
        }
        guard let network = result.network else {
            console.say("blob problems:")
            for problem in problems { console.say("  \(problem.tensor) (\(problem.file)): \(problem.problem)") }
            console.verdict("FAIL: the blobs cannot be loaded", pass: false)
            throw CheckFailed()
        }
        let float16 = result.manifest.tensors.contains { $0.dtype == .float16 }
        if float16 {
            problems += try HalfBlobCheck.problems(blobNetwork: network, folded: FoldBatchNorm.apply(to: original), manifest: result.manifest)
            console.say(
                "the blobs are float16: the fold is judged in float32, every blob value checked against it rounded to float16, "
                    + "and the float16-storage pass runs on the blob values")
        }
        return BlobCandidate(network: network, float16: float16, problems: problems, manifestDigest: manifest, sourceDigests: result.sourceDigests)
    }
}
