import Foundation
import FoldKitCore

/// The result of `foldkit verify`, printed as text and written as JSON with `--json` (Docs/Verify.md).
public struct VerificationReport: Codable, Equatable, Sendable {
    public struct Tolerance: Codable, Equatable, Sendable {
        /// atol, in output units.
        public var absolute: Double
        /// rtol, as a fraction of the layer's max |reference|.
        public var relative: Double
        public var rule: String
    }

    public struct LayerRef: Codable, Equatable, Sendable {
        public var index: Int
        public var name: String
        public var type: String
    }

    public var tool: String
    public var version: Int
    public var format: String
    public var files: [String]
    public var bnEpsilon: Double
    public var bnEpsilonMode: String
    public var input: String
    /// What the reference is: "original network (batch norm unfolded), float64".
    public var reference: String
    /// What is checked: "folded network, float32" or with float16 storage.
    public var candidate: String
    public var tolerance: Tolerance
    public var layers: [LayerDeviation]
    public var firstLayerOverTolerance: LayerRef?
    /// "pass" or "fail".
    public var verdict: String

    public var passed: Bool { verdict == "pass" }

    /// The human-readable report: one row per layer, units in the header, verdict last.
    public func text() -> String {
        var lines: [String] = []
        lines.append("reference: \(reference)")
        lines.append("candidate: \(candidate)")
        lines.append("input: \(input); batch norm: epsilon \(bnEpsilon) \(bnEpsilonMode == "inside" ? "inside sqrt(var + eps)" : "outside (sqrt(var) + eps)")")
        lines.append("deviation = |candidate - reference| in output units; relative = max deviation / max |reference| of the layer")
        lines.append("a layer passes when max deviation <= \(format(tolerance.absolute)) + \(format(tolerance.relative)) x max |reference| (the 'allowed' column)")
        lines.append("")
        let header = ["layer", "type", "shape CxHxW", "max|ref|", "max dev", "relative", "mean dev", "at (c,y,x)", "allowed", ""]
        var rows: [[String]] = [header]
        for layer in layers {
            rows.append([
                layer.name == String(layer.index) ? String(layer.index) : "\(layer.index) \(layer.name)",
                layer.type, layer.shape.map(String.init).joined(separator: "x"),
                format(layer.maxAbsReference), format(layer.maxAbsDeviation), format(layer.relativeDeviation),
                format(layer.meanAbsDeviation), "(\(layer.at.channel),\(layer.at.y),\(layer.at.x))", format(layer.allowed),
                layer.pass ? "ok" : "OVER",
            ])
        }
        let widths = (0..<header.count).map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            lines.append(zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  "))
        }
        lines.append("")
        if let first = firstLayerOverTolerance {
            let over = layers.filter { !$0.pass }.count
            lines.append("FAIL: \(over) of \(layers.count) layers over tolerance; first: layer \(first.index) '\(first.name)' (\(first.type))")
        } else {
            let worst = layers.map(\.relativeDeviation).max() ?? 0
            lines.append("PASS: all \(layers.count) layers within tolerance (largest relative deviation \(format(worst)))")
        }
        return lines.joined(separator: "\n")
    }

    private func format(_ value: Double) -> String {
        value == 0 ? "0" : String(format: "%.2e", value)
    }
}
