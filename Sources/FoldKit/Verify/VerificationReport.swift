import Foundation
import FoldKitCore

/// The result of `foldkit verify`, printed as text and written as JSON with `--json` (schema: Docs/Verify.md).
public struct VerificationReport: Codable, Equatable, Sendable {
    public struct Tolerance: Codable, Equatable, Sendable {
        /// atol, in output units.
        public var absolute: Double
        /// rtol as a fraction of each layer's max |reference|; null when the derived budget applies.
        public var relative: Double?
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
    /// What the reference is: "original network (batch norm unfolded), float64 arithmetic".
    public var reference: String
    /// What is checked: "folded network, float32" or with float16 storage.
    public var candidate: String
    public var tolerance: Tolerance
    /// Candidate against reference, per layer: the verdict's basis.
    public var layers: [LayerDeviation]
    /// With float16: the folded float32 network against the reference (the fold's own error).
    public var foldDeviation: [DeviationSummary]?
    /// With float16: the float16 network against the folded float32 one (what half storage adds).
    public var float16StorageDeviation: [DeviationSummary]?
    public var firstLayerOverTolerance: LayerRef?
    /// Boxes of the original and folded networks, for detectors.
    public var detections: DetectionComparison?
    /// Blob files that are missing, truncated or changed (verify --blobs).
    public var blobProblems: [BlobReader.Problem]?
    /// Float16 range problems (with --fp16).
    public var float16Hazards: [Float16Hazard]?
    /// Wall-clock seconds of each phase of the check.
    public var timings: [Timing]
    /// "pass" or "fail".
    public var verdict: String

    public struct Timing: Codable, Equatable, Sendable {
        public var phase: String
        public var seconds: Double
    }

    public var passed: Bool { verdict == "pass" }

    /// How many boxes the text report lists (strongest first).
    public static let printedBoxes = 30

    /// The human-readable report: one row per layer, units in the header, verdict last.
    public func text() -> String {
        var lines: [String] = []
        lines.append("reference: \(reference)")
        lines.append("candidate: \(candidate)")
        lines.append("input: \(input); batch norm: epsilon \(bnEpsilon) \(bnEpsilonMode == "inside" ? "inside, sqrt(var + eps)" : "outside, sqrt(var) + eps")")
        lines.append("dev = |candidate - reference| in output units; rel = max dev / max |ref| of the layer (= the smallest --rtol that passes it)")
        lines.append("tolerance: \(tolerance.rule)\(tolerance.relative == nil ? "" : " (absolute \(format(tolerance.absolute)), relative \(format(tolerance.relative ?? 0)))")")
        lines.append("")
        let header = ["layer", "type", "shape CxHxW", "max|ref|", "max dev", "rel", "mean dev", "p99 dev", "at (c,y,x)", "allowed rel", ""]
        var rows: [[String]] = [header]
        for layer in layers {
            rows.append([
                layer.name == String(layer.index) ? String(layer.index) : "\(layer.index) \(layer.name)",
                layer.type, layer.shape.map(String.init).joined(separator: "x"),
                format(layer.maxAbsReference), format(layer.maxAbsDeviation), format(layer.relativeDeviation),
                format(layer.meanAbsDeviation), format(layer.p99AbsDeviation), "(\(layer.at.channel),\(layer.at.y),\(layer.at.x))",
                format(layer.relativeTolerance), layer.pass ? "ok" : "OVER",
            ])
        }
        let widths = (0..<header.count).map { column in rows.map { $0[column].count }.max() ?? 0 }
        for row in rows {
            lines.append(zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  "))
        }
        if let fold = foldDeviation, let storage = float16StorageDeviation {
            let worstFold = fold.max { $0.relativeDeviation < $1.relativeDeviation }
            let worstStorage = storage.max { $0.relativeDeviation < $1.relativeDeviation }
            lines.append("")
            lines.append("error sources: fold alone (float32 folded vs reference) worst rel \(format(worstFold?.relativeDeviation ?? 0)) at layer \(worstFold?.index ?? 0); "
                + "float16 storage alone (float16 vs float32 folded) worst rel \(format(worstStorage?.relativeDeviation ?? 0)) at layer \(worstStorage?.index ?? 0)")
        }
        if let hazards = float16Hazards {
            lines.append("")
            lines.append(hazards.isEmpty ? "float16 hazards: none (weights, biases and activations fit float16)" : "float16 hazards (\(hazards.count)):")
            lines += hazards.map { "  " + $0.text }
        }
        if let d = detections {
            lines.append("")
            lines.append("detections (score = objectness x class probability > \(d.threshold), NMS IoU \(d.nmsIoU), boxes clipped to the "
                + "\(d.frame.imageWidth)x\(d.frame.imageHeight) image): original \(d.referenceCount), folded \(d.candidateCount)")
            // The strongest boxes only: random weights give hundreds of thousands; --json has them all.
            for (i, pair) in d.pairs.prefix(VerificationReport.printedBoxes).enumerated() {
                let r = pair.reference
                let name = i < d.referenceDetections.count ? d.referenceDetections[i].className.map { " (\($0))" } ?? "" : ""
                lines.append(String(format: "  class %d", r.classIndex) + name + String(format: "  score %.4f  box x %.4f y %.4f w %.4f h %.4f (fractions of the input)  ", r.score, r.x, r.y, r.width, r.height)
                    + (pair.candidate == nil ? "NO MATCH in folded" : String(format: "folded IoU %.5f, score diff %.2e", pair.iou, pair.scoreDifference)))
            }
            if d.pairs.count > VerificationReport.printedBoxes {
                lines.append("  ... \(d.pairs.count - VerificationReport.printedBoxes) more boxes (all of them are in the --json report)")
            }
            for extra in d.unpairedCandidates {
                lines.append(String(format: "  folded only: class %d score %.4f", extra.classIndex, extra.score))
            }
            lines.append("before NMS: \(d.pairedBeforeNMS) boxes paired by head/cell/anchor/class; \(d.borderlineUnpaired) found by one network only with a score within \(format(Double(d.borderline))) of the threshold (borderline), \(d.clearlyUnpaired.count) clearly above it")
            for box in d.clearlyUnpaired.prefix(10) {
                lines.append(String(format: "  only in one network: class %d score %.4f head %d cell %d anchor %d", box.classIndex, box.score, box.head, box.cell, box.anchor))
            }
            if d.nonFiniteBoxes > 0 {
                lines.append("\(d.nonFiniteBoxes) boxes with a non-finite centre or side not compared (float32 overflow hazard):")
                lines += d.overflowHazards.prefix(10).map { "  " + $0.text }
                if d.overflowHazards.count > 10 { lines.append("  ... \(d.overflowHazards.count - 10) more channels (all in --json)") }
            }
            if d.saturation.saturated {
                lines.append("the original network does not behave like a trained detector: \(d.saturation.scoringNearOne) of its \(d.saturation.candidates) boxes "
                    + "above the threshold score >= \(BoxComparison.nearOne); the box comparison is reported but does not count in the verdict "
                    + "(the per-layer comparison still judges the fold)")
            }
            lines.append("boxes \(d.pass ? "agree" : d.countsInVerdict ? "DISAGREE" : "disagree (not counted)"): smallest IoU \(String(format: "%.5f", d.smallestIoU)) (minimum \(d.minimumIoU)), largest score difference \(format(Double(d.largestScoreDifference)))")
        }
        if let problems = blobProblems {
            lines.append("")
            lines.append("blob problems (\(problems.count)):")
            lines += problems.map { "  \($0.tensor) (\($0.file)): \($0.problem)" }
        }
        lines.append("")
        lines.append("time: " + timings.map { "\($0.phase) \(String(format: "%.2f", $0.seconds)) s" }.joined(separator: ", "))
        if passed {
            let worst = layers.map(\.relativeDeviation).max() ?? 0
            lines.append("PASS: all \(layers.count) layers within tolerance (largest relative deviation \(format(worst)))")
        } else {
            var reasons: [String] = []
            if let first = firstLayerOverTolerance {
                reasons.append("\(layers.filter { !$0.pass }.count) of \(layers.count) layers over tolerance; first: layer \(first.index) '\(first.name)' (\(first.type))")
            }
            if detections?.acceptable == false { reasons.append("boxes differ") }
            if let problems = blobProblems { reasons.append("\(problems.count) blob problem(s): \(problems.map(\.tensor).joined(separator: ", "))") }
            lines.append("FAIL: " + reasons.joined(separator: "; "))
        }
        return lines.joined(separator: "\n")
    }

    private func format(_ value: Double) -> String {
        value == 0 ? "0" : String(format: "%.2e", value)
    }
}
