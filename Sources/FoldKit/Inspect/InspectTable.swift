import FoldKitCore

/// The `foldkit inspect` table: one row per layer. The "bn epsilon" column holds the epsilon the layer's
/// operation declares (`LayerOperation.epsilonConvention`: a batch norm's, attached or standalone, or a
/// layer or group normalization's), with where it is added.
package enum InspectTable {
    package static func render(_ network: Network) -> String {
        var rows: [[String]] = [["layer", "name", "type", "inputs", "output CxHxW", "params", "weights bytes", "bn epsilon"]]
        for layer in network.layers {
            let params = layer.kind.parameters.reduce(0) { $0 + $1.tensor.count }
            let bytes = layer.source.weightsByteRange.map { "\($0.lowerBound)..<\($0.upperBound)" } ?? "-"
            let bn = layer.kind.operation.epsilonConvention.map(describe) ?? "-"
            rows.append([
                String(layer.index), layer.name == String(layer.index) ? "" : layer.name, network.typeName(of: layer),
                layer.inputs.map { $0 == Network.inputIndex ? "input" : String($0) }.joined(separator: ","),
                layer.outputShape.description, params == 0 ? "-" : String(params), bytes, bn,
            ])
        }
        let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max() ?? 0 }
        var lines = rows.map { row in zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ") }
        lines.insert("\(network.format.rawValue) model: \(network.sourceFiles.joined(separator: " ")); input \(network.inputShape) (CxHxW)", at: 0)
        lines.append("\(network.layers.count) layers, \(network.parameterCount) parameters")
        if !network.metadata.entries.isEmpty {
            lines.append(network.metadata.entries.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))
        }
        return lines.joined(separator: "\n")
    }

    private static func describe(_ c: EpsilonConvention) -> String {
        "\(c.epsilon) \(c.placement.rawValue)"
    }
}
