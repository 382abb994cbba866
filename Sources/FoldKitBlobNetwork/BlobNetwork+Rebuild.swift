import FoldKitBlobFormat
import FoldKitCore
import Foundation

extension BlobNetwork {
    /// The folded network with every parameter taken from the blob values. Only the model's structure is
    /// used: its own weights are neither read nor folded (the blobs replace all of them).
    package static func rebuild(model: Network, manifest: BlobManifest, values: [String: [Float]]) throws -> Network {
        var network = model
        let byLayer = Dictionary(grouping: manifest.tensors, by: \.layer)
        for i in network.layers.indices {
            let layer = network.layers[i]
            let tensors = byLayer[layer.index] ?? []
            func blob(_ role: TensorRole) throws -> (BlobEntry, [Float]) {
                guard let entry = tensors.first(where: { $0.role == role }), let v = values[entry.name] else {
                    throw FoldKitError(
                        .badInput, "the manifest has no \(role.rawValue) blob for this layer", file: "manifest.json", layer: layer.label)
                }
                return (entry, v)
            }
            /// The weight layout a weights blob's manifest layout names; "sliced-depthwise" must be (and only be)
            /// on a depthwise layer.
            func layout(_ entry: BlobEntry) throws -> WeightLayout {
                let depthwise = network.weightsForm(of: layer)?.depthwise ?? false
                let stored = entry.layout
                guard let match = WeightLayout.allCases.first(where: { $0.blobLayout(depthwise: depthwise) == stored }) else {
                    let names = WeightLayout.allCases.map { $0.blobLayout(depthwise: depthwise).rawValue }.joined(separator: ", ")
                    throw FoldKitError(
                        .badInput, "unknown layout for this layer", file: entry.file, layer: layer.label, expected: names,
                        found: entry.layout.rawValue)
                }
                return match
            }
            /// The weights blob moved back from its manifest layout to OIHW (dims as BlobWriter wrote them).
            func oihwWeights() throws -> [Float] {
                let (entry, stored) = try blob(.weights)
                do {
                    return try WeightLayoutTransform.toOIHW(
                        stored, dims: network.weightsForm(of: layer)?.dims ?? [], from: try layout(entry),
                        depthwise: network.weightsForm(of: layer)?.depthwise ?? false)
                } catch let error as FoldKitError {
                    throw error.located(file: entry.file, layer: layer.label)
                }
            }
            guard !network.blobPlans(of: layer).isEmpty else { continue }
            network.layers[i].kind = try layer.kind.operation.readingBlobs { role in
                role == .weights ? try oihwWeights() : try blob(role).1
            }
        }
        return network
    }
}
