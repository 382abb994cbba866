import Foundation

/// The per-layer deviation chart of one precision as inline SVG, for the audit page.
///
/// x: the layers in order, one slot each (layer i at x = left + (i + 0.5) x plotWidth / n).
/// y: log10 of a deviation in output units, from the decade at or below the smallest positive value
/// drawn to the decade at or above the largest:
///
///     y(v) = top + plotHeight x (log10(high) - log10(v)) / (log10(high) - log10(low))
///
/// Three series: the candidate's max |candidate - reference| (blue dots, red where over tolerance), the
/// control's max |control - reference| (grey), and the allowance (the tolerance line, a red dashed step
/// line: `LayerVerdict.allowed`). A zero deviation has no logarithm and is drawn on the bottom axis, an
/// infinite or NaN one on the top axis (both are said in the point's tooltip).
enum DeviationChart {
    static let width = 960.0, height = 360.0
    static let left = 78.0, right = 16.0, top = 16.0, bottom = 64.0

    static func svg(_ verdict: PrecisionVerdict) -> String {
        let layers = verdict.layers
        let n = max(layers.count, 1)
        let values = layers.flatMap { [$0.candidate.maxAbsDeviation, $0.control.maxAbsDeviation, $0.allowed] }.filter { $0.isFinite && $0 > 0 }
        var low = floor(log10(values.min() ?? 1e-12)), high = ceil(log10(values.max() ?? 1))
        if high <= low { high = low + 1 }
        if high - low > 40 { low = high - 40 }
        let plotWidth = width - left - right, plotHeight = height - top - bottom
        func x(_ i: Int) -> Double { left + (Double(i) + 0.5) * plotWidth / Double(n) }
        func y(_ v: Double) -> Double {
            guard v.isFinite else { return top }
            guard v > 0 else { return top + plotHeight }
            let e = min(max(log10(v), low), high)
            return top + plotHeight * (high - e) / (high - low)
        }
        func f(_ v: Double) -> String { String(format: "%.1f", v) }

        var svg: [String] = []
        svg.append(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" viewBox=\"0 0 \(f(width)) \(f(height))\" width=\"\(f(width))\" height=\"\(f(height))\" role=\"img\" aria-label=\"per-layer deviation, \(XMLText.escape(verdict.precision.rawValue)), log scale\">"
        )
        svg.append("<rect x=\"\(f(left))\" y=\"\(f(top))\" width=\"\(f(plotWidth))\" height=\"\(f(plotHeight))\" fill=\"#fafafa\" stroke=\"#888\"/>")
        // Decades: grid line and label.
        let step = max(1, Int((high - low) / 10))
        for decade in stride(from: Int(low), through: Int(high), by: step) {
            let yy = y(pow(10, Double(decade)))
            svg.append("<line x1=\"\(f(left))\" y1=\"\(f(yy))\" x2=\"\(f(width - right))\" y2=\"\(f(yy))\" stroke=\"#ddd\"/>")
            svg.append("<text x=\"\(f(left - 6))\" y=\"\(f(yy + 4))\" text-anchor=\"end\" class=\"axis\">1e\(decade)</text>")
        }
        // Layer ticks: about ten.
        let every = max(1, Int((Double(n) / 10).rounded(.up)))
        for i in stride(from: 0, to: layers.count, by: every) {
            svg.append("<text x=\"\(f(x(i)))\" y=\"\(f(top + plotHeight + 16))\" text-anchor=\"middle\" class=\"axis\">\(layers[i].index)</text>")
        }
        svg.append("<text x=\"\(f(left + plotWidth / 2))\" y=\"\(f(top + plotHeight + 32))\" text-anchor=\"middle\" class=\"axis\">layer</text>")
        svg.append(
            "<text x=\"14\" y=\"\(f(top + plotHeight / 2))\" text-anchor=\"middle\" class=\"axis\" transform=\"rotate(-90 14 \(f(top + plotHeight / 2)))\">max deviation (output units, log)</text>"
        )

        // Tolerance: a step line, flat across each layer's slot.
        let half = plotWidth / Double(n) / 2
        let tolerance = layers.indices.map { i in "\(f(x(i) - half)),\(f(y(layers[i].allowed))) \(f(x(i) + half)),\(f(y(layers[i].allowed)))" }
        svg.append(
            "<polyline class=\"tolerance\" points=\"\(tolerance.joined(separator: " "))\" fill=\"none\" stroke=\"#c62828\" stroke-width=\"1.5\" stroke-dasharray=\"6 3\"/>"
        )
        let control = layers.indices.map { "\(f(x($0))),\(f(y(layers[$0].control.maxAbsDeviation)))" }
        svg.append("<polyline class=\"control\" points=\"\(control.joined(separator: " "))\" fill=\"none\" stroke=\"#9e9e9e\" stroke-width=\"1.5\"/>")
        let candidate = layers.indices.map { "\(f(x($0))),\(f(y(layers[$0].candidate.maxAbsDeviation)))" }
        svg.append(
            "<polyline class=\"candidate\" points=\"\(candidate.joined(separator: " "))\" fill=\"none\" stroke=\"#1565c0\" stroke-width=\"1.5\"/>")
        let radius = n > 200 ? 1.5 : 3
        for (i, layer) in layers.enumerated() {
            let d = layer.candidate.maxAbsDeviation
            let note = d == 0 ? " (zero: drawn on the bottom axis)" : d.isFinite ? "" : " (not finite: drawn on the top axis)"
            let title =
                "layer \(layer.index) \(layer.type): max dev \(XMLText.short(d))\(note), control \(XMLText.short(layer.control.maxAbsDeviation)), allowed \(XMLText.short(layer.allowed)) (\(layer.allowedBy)), \(layer.pass ? "ok" : "OVER")"
            svg.append(
                "<circle cx=\"\(f(x(i)))\" cy=\"\(f(y(d)))\" r=\"\(radius)\" fill=\"\(layer.pass ? "#1565c0" : "#c62828")\" data-layer=\"\(layer.index)\" data-value=\"\(XMLText.number(d))\"><title>\(XMLText.escape(title))</title></circle>"
            )
        }
        // Legend, in one row under the axis.
        let ly = height - 10
        let entries: [(String, String, String)] = [
            ("#1565c0", "", "candidate (folded) max |candidate - reference|"),
            ("#9e9e9e", "", "control (original) max |control - reference|"),
            ("#c62828", " stroke-dasharray=\"6 3\"", "tolerance (allowed)"),
        ]
        var lx = left
        svg.append("<g class=\"legend\">")
        for (color, dash, label) in entries {
            svg.append(
                "<line x1=\"\(f(lx))\" y1=\"\(f(ly - 4))\" x2=\"\(f(lx + 24))\" y2=\"\(f(ly - 4))\" stroke=\"\(color)\" stroke-width=\"2\"\(dash)/>"
                    + "<text x=\"\(f(lx + 30))\" y=\"\(f(ly))\" class=\"axis\">\(XMLText.escape(label))</text>")
            lx += 40 + Double(label.count) * 6.2
        }
        svg.append("</g>")
        svg.append("</svg>")
        return svg.joined(separator: "\n")
    }
}
