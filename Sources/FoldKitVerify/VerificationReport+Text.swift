import FoldKitDetection
import Foundation

/// The text form of the report: what `foldkit verify` prints.
extension VerificationReport {
    /// The human-readable report: per precision one row per layer, units in the header, verdict last.
    public func text() -> String {
        var lines = headerLines()
        for verdict in precisions {
            lines.append("")
            lines += layerTable(verdict)
            lines += conditioningLines(verdict)
        }
        if let hazards = float16Hazards {
            lines.append("")
            lines.append(
                hazards.isEmpty ? "float16 hazards: none (weights, biases and activations fit float16)" : "float16 hazards (\(hazards.count)):")
            lines += hazards.map { "  " + $0.text }
        }
        if let d = detections {
            lines.append("")
            lines += detectionLines(d)
        }
        if let problems = blobProblems {
            lines.append("")
            lines.append("blob problems (\(problems.count)):")
            lines += problems.map { "  \($0.tensor) (\($0.file)): \($0.problem)" }
        }
        lines.append("")
        lines.append("time: " + timings.map { "\($0.phase) \(String(format: "%.2f", $0.seconds)) s" }.joined(separator: ", "))
        lines.append(passed ? passLine() : failLine())
        return lines.joined(separator: "\n")
    }

    /// The files read, what was compared with what, the input, batch norm's epsilon and the tolerance rule.
    private func headerLines() -> [String] {
        var lines: [String] = []
        lines.append("foldkit \(toolVersion) verify (report schema \(schemaVersion))")
        lines.append("files read (SHA-256):")
        lines += filesRead.map { "  " + $0.text }
        lines.append("reference: \(reference)")
        lines.append("candidate: \(candidate)")
        let cast = filesRead.first { $0.role == .input && $0.path == input }?.note.map { " (\($0))" } ?? ""
        lines.append(
            "input: \(input)\(cast); batch norm: epsilon \(bnEpsilon) \(bnEpsilonMode == "inside" ? "inside, sqrt(var + eps)" : "outside, sqrt(var) + eps")"
        )
        lines.append(
            "control dev = max |control - reference|, max dev = max |candidate - reference|, in output units; rel = max dev / max |ref| of the layer")
        lines.append("tolerance: \(tolerance.rule) (atol \(format(tolerance.absolute))\(tolerance.relative.map { ", rtol \(format($0))" } ?? ""))")
        return lines
    }

    /// One precision's table: one row per layer, the deviations in output units.
    private func layerTable(_ verdict: PrecisionVerdict) -> [String] {
        var lines: [String] = []
        lines.append(
            "\(verdict.precision.rawValue): control = \(verdict.control); candidate = \(verdict.candidate); K = \(verdict.controlFactor)")
        let header = [
            "layer", "type", "shape CxHxW", "max|ref|", "control dev", "max dev", "rel", "mean dev", "p99 dev", "at (c,y,x)", "allowed", "by", "",
        ]
        var rows: [[String]] = [header]
        for layer in verdict.layers {
            let d = layer.candidate
            rows.append([
                layer.name == String(layer.index) ? String(layer.index) : "\(layer.index) \(layer.name)",
                layer.type, layer.shape.map(String.init).joined(separator: "x"),
                format(d.maxAbsReference), format(layer.control.maxAbsDeviation), format(d.maxAbsDeviation), format(d.relativeDeviation),
                format(d.meanAbsDeviation), format(d.p99AbsDeviation), "(\(d.at.channel),\(d.at.y),\(d.at.x))",
                format(layer.allowed), layer.allowedBy, layer.pass ? (layer.conditioning == nil ? "ok" : "ok*") : "OVER",
            ])
        }
        let widths = (0..<header.count).map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            lines.append(zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  "))
        }
        return lines
    }

    /// The boxes of a detector: the strongest pairs, boxes found by one network only, overflow and
    /// saturation notes, and the comparison's summary.
    private func detectionLines(_ d: DetectionComparison) -> [String] {
        var lines: [String] = []
        lines.append(
            "detections (score = objectness x class probability > \(d.threshold), NMS IoU \(d.nmsIoU), boxes clipped to the "
                + "\(d.frame.imageWidth)x\(d.frame.imageHeight) image): original \(d.referenceCount), folded \(d.candidateCount)")
        // The strongest boxes only: random weights give hundreds of thousands; --json has them all.
        for (i, pair) in d.pairs.prefix(VerificationReport.printedBoxes).enumerated() {
            let r = pair.reference
            let name = i < d.referenceDetections.count ? d.referenceDetections[i].className.map { " (\($0))" } ?? "" : ""
            lines.append(
                String(format: "  class %d", r.classIndex) + name
                    + String(
                        format: "  score %.4f  box x %.4f y %.4f w %.4f h %.4f (fractions of the input)  ", r.score, r.x, r.y, r.width, r.height)
                    + (pair.candidate == nil
                        ? "NO MATCH in folded" : String(format: "folded IoU %.5f, score diff %.2e", pair.iou, pair.scoreDifference)))
        }
        if d.pairs.count > VerificationReport.printedBoxes {
            lines.append("  ... \(d.pairs.count - VerificationReport.printedBoxes) more boxes (all of them are in the --json report)")
        }
        for extra in d.unpairedCandidates {
            lines.append(String(format: "  folded only: class %d score %.4f", extra.classIndex, extra.score))
        }
        lines.append(
            "before NMS: \(d.pairedBeforeNMS) boxes paired by head/cell/anchor/class; \(d.borderlineUnpaired) found by one network only with a score within \(format(Double(d.borderline))) of the threshold or within the head allowance's reach of it (borderline), \(d.clearlyUnpaired.count) clearly above it"
        )
        for box in d.clearlyUnpaired.prefix(10) {
            lines.append(
                String(
                    format: "  only in one network: class %d score %.4f head %d cell %d anchor %d", box.classIndex, box.score, box.head, box.cell,
                    box.anchor))
        }
        if d.nonFiniteBoxes > 0 {
            lines.append("\(d.nonFiniteBoxes) boxes with a non-finite centre or side not compared (float32 overflow hazard):")
            lines += d.overflowHazards.prefix(10).map { "  " + $0.text }
            if d.overflowHazards.count > 10 { lines.append("  ... \(d.overflowHazards.count - 10) more channels (all in --json)") }
        }
        if d.saturation.saturated {
            lines.append(
                "the original network does not behave like a trained detector: \(d.saturation.scoringNearOne) of its \(d.saturation.candidates) boxes "
                    + "above the threshold score >= \(BoxComparison.nearOne); the box comparison is reported but does not count in the verdict "
                    + "(the per-layer comparison still judges the fold)")
        }
        lines += (undecodedAnchors ?? []).map { "  not decoded: " + $0 }
        lines.append(d.summary)
        return lines
    }

    /// The closing line of a report that passed: the largest deviations and the ill-conditioned elements.
    private func passLine() -> String {
        let layers = precisions.flatMap(\.layers)
        let worst = layers.map(\.candidate.relativeDeviation).max() ?? 0
        // Over layers within their allowance; ok* layers are over it by definition and reported apart.
        let closest = layers.filter { $0.conditioning == nil }.map { $0.allowed > 0 ? $0.candidate.maxAbsDeviation / $0.allowed : 0 }.max() ?? 0
        let excused = layers.compactMap(\.conditioning).filter(\.excusesLayer)
        return
            ("PASS: all \(precisions.first?.layers.count ?? 0) layers within tolerance in \(precisions.map(\.precision.rawValue).joined(separator: " and ")) "
            + "(largest relative deviation \(format(worst)); largest max dev / allowed \(format(closest)))"
            + (excused.isEmpty
                ? ""
                : "; \(excused.map(\.illConditioned).reduce(0, +)) ill-conditioned elements in \(excused.count) layers (ok*), "
                    + "which rounding alone moves as far in the original network"))
    }

    /// The closing line of a report that failed: every reason, the first layer over tolerance of each precision.
    private func failLine() -> String {
        var reasons: [String] = []
        for verdict in precisions {
            guard let first = verdict.firstLayerOverTolerance else { continue }
            var reason =
                "\(verdict.precision.rawValue): \(verdict.layers.filter { !$0.pass }.count) of \(verdict.layers.count) layers over tolerance; "
                + "first: layer \(first.index) '\(first.name)' (\(first.type))"
            if verdict.precision == .float16Storage, let causes = float16FailureCause {
                reason +=
                    causes.isEmpty
                    ? " (no float16 range hazard at or before it)"
                    : "; cause: float16 range hazard: " + causes.prefix(3).map(\.text).joined(separator: "; ")
                        + (causes.count > 3 ? "; ... (\(causes.count) hazards)" : "")
            }
            reasons.append(reason)
        }
        if detections?.acceptable == false { reasons.append("boxes differ") }
        if let problems = blobProblems { reasons.append("\(problems.count) blob problem(s): \(problems.map(\.tensor).joined(separator: ", "))") }
        return "FAIL: " + reasons.joined(separator: "; ")
    }

    /// The conditioning check's findings of one precision, one line per layer it looked at.
    private func conditioningLines(_ verdict: PrecisionVerdict) -> [String] {
        let examined = verdict.layers.filter { $0.conditioning != nil }
        guard !examined.isEmpty else { return [] }
        let runs = ConditioningCheck.perturbedRuns + 1
        var lines = [
            "",
            "\(verdict.precision.rawValue) conditioning check of the layers over their allowance: spread = max |run - reference| over \(runs) runs "
                + "of the original network in \(verdict.precision.rawValue) (the control and \(runs - 1) with every layer output and parameter "
                + "perturbed by up to 2 units of roundoff, relative); an element is ill-conditioned - the precision cannot resolve it, folded or not - when "
                + "its max dev <= K x spread (K = \(verdict.controlFactor)); ok* = every element over the allowance is ill-conditioned",
        ]
        for layer in examined {
            guard let finding = layer.conditioning else { continue }
            var line =
                "  \(layer.index) \(layer.name) (\(layer.type)): \(finding.elementsOverAllowance) element\(finding.elementsOverAllowance == 1 ? "" : "s") "
                + "over the allowance"
            if let reason = finding.notExamined {
                line += ", not examined: \(reason)"
            } else {
                line += ", \(finding.illConditioned) ill-conditioned"
                if let activation = finding.comparedBefore { line += " (measured on the \(activation)'s input)" }
                if let e = finding.leastExplained {
                    let ratio = e.spread > 0 ? e.deviation / e.spread : .infinity
                    line +=
                        "; least explained at (\(e.at.channel),\(e.at.y),\(e.at.x)): max dev \(format(e.deviation)), spread \(format(e.spread)) "
                        + "(\(String(format: "%.2f", ratio)) x)"
                }
            }
            lines.append(line)
        }
        return lines
    }

    private func format(_ value: Double) -> String {
        value == 0 ? "0" : String(format: "%.2e", value)
    }
}
