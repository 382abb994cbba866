import FoldKitCore
import Foundation

/// `verify --report audit.html`: the verification report as one self-contained XHTML page a person can
/// read and archive. No scripts, no network: the CSS is inline, the charts are inline SVG, the image is
/// a `data:` URI. The page is well-formed XML (XHTML served as HTML), so XML tools can read it too.
///
/// Every number comes from the `VerificationReport` that `--json` writes: each table cell holding a
/// number carries it in `data-value` as Swift's shortest round-trip decimal (the JSON encoder's
/// form), beside a 3-digit rendering for people. Sections (Docs/Verify.md "Audit page"):
/// the verdict with the tool version, the files read with their SHA-256 (`FileDigest`), one chart per
/// precision (`DeviationChart`), the float16 hazards, the boxes on the image (`DetectionOverlay`, with
/// `--image`), one layer table per precision, blob problems, timings.
package enum AuditPage {
    /// How many of the original network's boxes the page draws and lists (strongest first).
    package static let shownBoxes = 100

    package static func render(_ report: VerificationReport, image: AuditImage?) -> String {
        var html: [String] = []
        let verdict = report.verdict.label
        let title = "foldkit verify: \(verdict), \(report.files.map { URL(fileURLWithPath: $0).lastPathComponent }.joined(separator: " "))"
        html.append("<!DOCTYPE html>")
        html.append("<html xmlns=\"http://www.w3.org/1999/xhtml\" lang=\"en\">")
        html.append("<head><meta charset=\"utf-8\"/><title>\(XMLText.escape(title))</title><style>\(AuditPageStyle.css)</style></head>")
        html.append("<body>")
        html.append("<h1>foldkit verify <span id=\"verdict\" class=\"verdict \(report.verdict.rawValue)\">\(verdict)</span></h1>")
        html.append(summary(report))
        html.append(filesRead(report))
        for precision in report.precisions { html.append(chart(precision)) }
        html.append(hazards(report))
        if let detections = report.detections { html.append(boxes(detections, image: image)) }
        html.append("<section id=\"layers\"><h2>Layers</h2>")
        for precision in report.precisions { html.append(table(precision)) }
        html.append("</section>")
        if let problems = report.blobProblems {
            html.append("<section id=\"blob-problems\"><h2>Blob problems (\(problems.count))</h2><ul>")
            html += problems.map { "<li>\(XMLText.escape("\($0.tensor) (\($0.file)): \($0.problem)"))</li>" }
            html.append("</ul></section>")
        }
        html.append(
            "<footer><p>foldkit \(XMLText.escape(report.toolVersion)), report schema \(report.schemaVersion); time: "
                + XMLText.escape(report.timings.map { "\($0.phase) \(String(format: "%.2f", $0.seconds)) s" }.joined(separator: ", "))
                + "</p></footer>")
        html.append("</body></html>")
        return html.joined(separator: "\n") + "\n"
    }

    /// Writes the page to `url` (UTF-8).
    package static func write(_ report: VerificationReport, image: AuditImage?, to url: URL) throws {
        do { try Data(render(report, image: image).utf8).write(to: url, options: .atomic) } catch {
            throw FoldKitError(.io, "cannot write the audit page: \(error.localizedDescription)", file: url.path)
        }
    }

    private static func summary(_ report: VerificationReport) -> String {
        var rows: [(String, String)] = [
            ("tool", "foldkit \(report.toolVersion) (report schema \(report.schemaVersion))"),
            ("files", report.files.joined(separator: " ")),
            ("format", report.format),
            ("input", report.input),
            (
                "batch norm",
                "epsilon \(report.bnEpsilon), \(report.bnEpsilonMode == "inside" ? "inside: sqrt(var + eps)" : "outside: sqrt(var) + eps")"
            ),
            ("reference", report.reference),
            ("candidate", report.candidate),
            ("tolerance", report.tolerance.rule + " (atol \(report.tolerance.absolute)\(report.tolerance.relative.map { ", rtol \($0)" } ?? ""))"),
        ]
        if let folder = report.blobFolder { rows.append(("blob folder", "\(folder) (the candidate ran from these blob files)")) }
        if let first = report.firstLayerOverTolerance {
            rows.append(
                (
                    "first layer over tolerance",
                    "layer \(first.index) '\(first.name)' (\(first.type))\(first.precision.map { " in \($0.rawValue)" } ?? "")"
                ))
        }
        for precision in report.precisions {
            let over = precision.layers.filter { !$0.pass }.count
            let closest = precision.layers.map { $0.allowed > 0 ? $0.candidate.maxAbsDeviation / $0.allowed : 0 }.max() ?? 0
            rows.append(
                (
                    "\(precision.precision.rawValue)",
                    over == 0
                        ? "all \(precision.layers.count) layers within tolerance; largest max dev / allowed \(XMLText.short(closest))"
                        : "\(over) of \(precision.layers.count) layers over tolerance"
                ))
        }
        if let detections = report.detections {
            rows.append(("boxes", detections.pass ? "agree" : detections.countsInVerdict ? "DISAGREE" : "disagree (not counted in the verdict)"))
        }
        if let problems = report.blobProblems { rows.append(("blobs", "\(problems.count) problem(s)")) }
        let body = rows.map { "<tr><th scope=\"row\">\(XMLText.escape($0.0))</th><td>\(XMLText.escape($0.1))</td></tr>" }
        return "<section id=\"summary\"><table class=\"summary\">\n" + body.joined(separator: "\n") + "\n</table></section>"
    }

    /// Every file the run read, with its size and SHA-256 (and how an --input array was converted): what
    /// the audit covered. Each row carries `data-role` and `data-sha256`.
    private static func filesRead(_ report: VerificationReport) -> String {
        var html = ["<section id=\"files-read\"><h2>Files read</h2>"]
        if let folder = report.blobFolder {
            html.append(
                "<p>The folded network (the candidate) ran from the blob files in \(XMLText.escape(folder)), as manifest.json lists them.</p>")
        }
        html.append(
            "<table class=\"files\"><thead><tr><th>role</th><th>file</th><th>bytes</th><th>SHA-256</th><th>note</th></tr></thead><tbody>")
        for file in report.filesRead {
            html.append(
                "<tr data-role=\"\(XMLText.escape(file.role.rawValue))\" data-sha256=\"\(file.sha256)\"><td>\(XMLText.escape(file.role.rawValue))</td>"
                    + "<td>\(XMLText.escape(file.path))</td><td class=\"num\">\(file.bytes)</td><td><code>\(file.sha256)</code></td>"
                    + "<td>\(XMLText.escape(file.note ?? ""))</td></tr>")
        }
        html.append("</tbody></table></section>")
        return html.joined(separator: "\n")
    }

    private static func chart(_ verdict: PrecisionVerdict) -> String {
        let id = "precision-" + verdict.precision.rawValue.replacingOccurrences(of: " ", with: "-")
        var html: [String] = []
        html.append("<section class=\"precision\" id=\"\(id)\" data-precision=\"\(XMLText.escape(verdict.precision.rawValue))\">")
        html.append(
            "<h2>\(XMLText.escape(verdict.precision.rawValue)) <span class=\"verdict \(verdict.pass ? "pass" : "fail")\">\(verdict.pass ? "pass" : "FAIL")</span></h2>"
        )
        html.append(
            "<p>control: \(XMLText.escape(verdict.control)); candidate: \(XMLText.escape(verdict.candidate)); K = \(verdict.controlFactor)</p>")
        html.append(
            "<figure>\(DeviationChart.svg(verdict))<figcaption>Per-layer max deviation from the float64 reference, log scale. "
                + "A layer passes when its blue dot is at or below the dashed tolerance line; the numbers are in the layer tables below.</figcaption></figure>"
        )
        html.append("</section>")
        return html.joined(separator: "\n")
    }

    private static func table(_ verdict: PrecisionVerdict) -> String {
        var html: [String] = []
        html.append("<h3>\(XMLText.escape(verdict.precision.rawValue))</h3>")
        html.append(
            "<table class=\"layers\" data-precision=\"\(XMLText.escape(verdict.precision.rawValue))\"><thead><tr><th>layer</th><th>type</th><th>shape CxHxW</th><th>max|ref|</th><th>control dev</th>"
                + "<th>max dev</th><th>rel</th><th>allowed</th><th>by</th><th></th></tr></thead><tbody>")
        for layer in verdict.layers {
            let d = layer.candidate
            func cell(_ field: String, _ value: Double) -> String {
                "<td class=\"num\" data-field=\"\(field)\" data-value=\"\(XMLText.number(value))\">\(XMLText.short(value))</td>"
            }
            let name = layer.name == String(layer.index) ? String(layer.index) : "\(layer.index) \(layer.name)"
            html.append(
                "<tr data-layer=\"\(layer.index)\"\(layer.pass ? "" : " class=\"over\"")><td>\(XMLText.escape(name))</td><td>\(XMLText.escape(layer.type))</td>"
                    + "<td>\(layer.shape.map(String.init).joined(separator: "x"))</td>"
                    + cell("maxAbsReference", d.maxAbsReference) + cell("controlMaxAbsDeviation", layer.control.maxAbsDeviation)
                    + cell("maxAbsDeviation", d.maxAbsDeviation) + cell("relativeDeviation", d.relativeDeviation) + cell("allowed", layer.allowed)
                    + "<td>\(XMLText.escape(layer.allowedBy))</td><td>\(layer.pass ? "ok" : "OVER")</td></tr>")
        }
        html.append("</tbody></table>")
        return html.joined(separator: "\n")
    }

    private static func hazards(_ report: VerificationReport) -> String {
        var html = ["<section id=\"float16-hazards\"><h2>float16 hazards</h2>"]
        guard let hazards = report.float16Hazards else {
            html.append(
                "<p>Not checked: run verify with --fp16 to scan the folded weights and the activations for values float16 cannot hold.</p></section>")
            return html.joined(separator: "\n")
        }
        if hazards.isEmpty {
            html.append("<p class=\"none\">None: the folded weights, biases and activations fit float16.</p>")
        } else {
            html.append("<table class=\"hazards\"><thead><tr><th>layer</th><th>kind</th><th>channels</th><th>magnitude</th></tr></thead><tbody>")
            for hazard in hazards {
                let channels =
                    hazard.channels.prefix(24).map(String.init).joined(separator: ", ")
                    + (hazard.channels.count > 24 ? ", ... (\(hazard.channels.count))" : "")
                html.append(
                    "<tr data-layer=\"\(hazard.layer)\"><td>\(XMLText.escape(hazard.name == String(hazard.layer) ? String(hazard.layer) : "\(hazard.layer) \(hazard.name)"))</td>"
                        + "<td>\(XMLText.escape(hazard.kind.rawValue))</td><td>\(channels)</td>"
                        + "<td class=\"num\" data-value=\"\(XMLText.number(Double(hazard.magnitude)))\">\(XMLText.short(Double(hazard.magnitude)))</td></tr>"
                )
            }
            html.append("</tbody></table>")
        }
        if let causes = report.float16FailureCause {
            html.append(
                causes.isEmpty
                    ? "<p>float16 storage fails with no float16 range hazard at or before its first failing layer.</p>"
                    : "<p>Named as the cause of the float16 failure: " + XMLText.escape(causes.prefix(3).map(\.text).joined(separator: "; ")) + "</p>"
            )
        }
        html.append("</section>")
        return html.joined(separator: "\n")
    }

    private static func boxes(_ d: DetectionComparison, image: AuditImage?) -> String {
        var html = ["<section id=\"detections\"><h2>Boxes</h2>"]
        html.append(
            "<p>\(XMLText.escape("score = objectness x class probability > \(d.threshold), NMS IoU \(d.nmsIoU): original \(d.referenceCount) boxes, folded \(d.candidateCount); \(d.summary)"))</p>"
        )
        let shown = Array(d.referenceDetections.prefix(shownBoxes))
        if let image {
            html.append(
                "<figure>\(DetectionOverlay.svg(image: image, boxes: shown))<figcaption>The original network's boxes"
                    + (d.referenceDetections.count > shownBoxes
                        ? " (the \(shownBoxes) strongest of \(d.referenceDetections.count); all are in the --json report)" : "")
                    + ".</figcaption></figure>")
        }
        if !shown.isEmpty {
            html.append("<table class=\"boxes\"><thead><tr><th>label</th><th>left</th><th>top</th><th>right</th><th>bottom</th></tr></thead><tbody>")
            for box in shown {
                html.append(
                    "<tr><td>\(XMLText.escape(box.label))</td>"
                        + [box.left, box.top, box.right, box.bottom].map {
                            "<td class=\"num\" data-value=\"\(XMLText.number($0))\">\(String(format: "%.1f", $0))</td>"
                        }.joined() + "</tr>")
            }
            html.append("</tbody></table>")
        }
        html.append("</section>")
        return html.joined(separator: "\n")
    }
}
