import FoldKitBlobFormat
import FoldKitCore
import FoldKitIO
import Foundation

/// The check of float16 blobs against the fold verify has proven: every value of every float16 blob must
/// be the float32 folded value (`FoldBatchNorm`, judged layer by layer against the float64 original in the
/// same run) rounded to float16 with round to nearest even, bit for bit.
///
/// A float16 network cannot show a fold error smaller than its own rounding (a 1% error in one channel
/// drowns in float16 storage), so float16 blobs are judged in two steps: the fold in float32, where such
/// errors stand out, then the blob bytes against that fold. A difference of any size is a problem naming
/// the blob, its layer, how many values differ and the largest difference.
package enum HalfBlobCheck {
    /// Problems of the float16 blobs of `manifest` (rebuilt as `blobNetwork`) against `folded`, the float32
    /// fold of the same model; empty when every value matches.
    package static func problems(blobNetwork: Network, folded: Network, manifest: BlobManifest) throws -> [BlobReader.Problem] {
        var problems: [BlobReader.Problem] = []
        let entries = Dictionary(grouping: manifest.tensors, by: \.layer)
        for (blobLayer, foldedLayer) in zip(blobNetwork.layers, folded.layers) {
            let expected = Dictionary(foldedLayer.kind.parameters.map { ($0.role, $0.tensor) }, uniquingKeysWith: { first, _ in first })
            for (role, tensor) in blobLayer.kind.parameters {
                guard let entry = entries[blobLayer.index]?.first(where: { $0.role == role }), entry.dtype == .float16,
                    let reference = expected[role]
                else { continue }
                let stored = try tensor.floats(), fold = try reference.floats()
                var differing = 0, worst = -1, worstGap: Float = 0
                for i in 0..<min(stored.count, fold.count) {
                    let rounded = HalfFloat.float(fromBits: HalfConversion.bits(fold[i]))
                    if stored[i].bitPattern != rounded.bitPattern && !(stored[i].isNaN && rounded.isNaN) {
                        differing += 1
                        let gap = abs(stored[i] - rounded)
                        if worst < 0 || gap > worstGap || gap.isNaN { (worst, worstGap) = (i, gap) }
                    }
                }
                if stored.count != fold.count {
                    problems.append(
                        BlobReader.Problem(
                            tensor: entry.name, file: entry.file,
                            problem: "\(blobLayer.label): \(stored.count) values where the fold has \(fold.count)", kind: .foldMismatch))
                } else if differing > 0 {
                    problems.append(
                        BlobReader.Problem(
                            tensor: entry.name, file: entry.file,
                            problem: "\(blobLayer.label): \(differing) of \(stored.count) values are not the verified float32 fold "
                                + "rounded to float16 (largest difference \(worstGap) at element \(worst) in OIHW order: blob \(stored[worst]), "
                                + "fold rounded \(HalfFloat.float(fromBits: HalfConversion.bits(fold[worst]))))",
                            kind: .foldMismatch))
                }
            }
        }
        return problems
    }
}
