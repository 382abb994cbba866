import FoldKitCore
import Foundation

/// Writes synthetic but complete Darknet .weights files, the same bytes on every platform.
///
/// Layout: a 20-byte header (major 0, minor 2, revision 5, seen = 0 as uint64), then every tensor the
/// cfg implies in darknet's file order (see `DarknetReader`), as little-endian float32.
///
/// Values come from one splitmix64 stream (`FoldKitCore.SplitMix64`) seeded with `seed`, drawn in file
/// order from the distributions of `generator` (see `DarknetWeightGenerator`: `uniform` by default, `he`,
/// `wide`). With `uniform`, one draw per float:
///
///     state = state &+ 0x9E3779B97F4A7C15
///     z = state; z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9; z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
///     next = z ^ (z >> 31)
///     u = Double(next >> 11) / 2^53                      (uniform in [0, 1))
///     value = Float(lo + (hi - lo) * u)                  (computed in Double, rounded once)
///
/// Ranges by role (`uniform`): bias / beta U(-0.1, 0.1); gamma (scales) U(0.5, 1.5); rolling mean U(-0.1, 0.1);
/// rolling variance U(0.5, 1.5); weights U(-a, a) with a = sqrt(3 / fan_in), fan_in = (c/groups)*size*size
/// for convolutions and the input count for [connected] (unit variance per output for unit inputs).
public enum DarknetSeededWeights {
    /// Writes a .weights file for `cfgPath` at `path` with every parameter drawn from `generator` seeded
    /// by `seed` (the same seed gives the same file), for tests and benchmarks without a trained model.
    public static func write(cfgPath: String, seed: UInt64, generator: DarknetWeightGenerator = .uniform, to path: String) throws {
        let cfg = try CfgParser.parse(path: cfgPath)
        let header = DarknetWeightsHeader(major: 0, minor: 2, revision: 5, seen: 0)
        // Plan against the file about to be written: its tensors are lazy spans, so nothing is allocated.
        let (_, cursor) = try DarknetReader.build(cfg, weightsPath: path, dataOffset: header.byteCount, options: .init())
        guard FileManager.default.createFile(atPath: path, contents: header.encoded),
            let handle = FileHandle(forWritingAtPath: path)
        else {
            throw FoldKitError(.io, "cannot create the weights file", file: path)
        }
        defer { try? handle.close() }
        var random = SplitMix64(seed: seed)
        do {
            try handle.seekToEnd()
            // A layer's tensors are drawn together (`wide` adjusts gamma from the variance drawn after it).
            var start = 0
            let plan = cursor.plan
            while start < plan.count {
                var end = start + 1
                while end < plan.count && plan[end].layerLabel == plan[start].layerLabel { end += 1 }
                let layer = generator.drawLayer(plan[start..<end].map { ($0.role, $0.count, $0.fanIn) }, from: &random)
                for tensor in layer {
                    let words = [UInt32](unsafeUninitializedCapacity: tensor.count) { buffer, initialized in
                        tensor.withUnsafeBufferPointer { values in
                            for i in values.indices { buffer[i] = values[i].bitPattern.littleEndian }
                        }
                        initialized = tensor.count
                    }
                    try words.withUnsafeBytes { try handle.write(contentsOf: Data($0)) }
                }
                start = end
            }
        } catch {
            throw FoldKitError(.io, "cannot write the weights file: \(error)", file: path)
        }
    }
}
