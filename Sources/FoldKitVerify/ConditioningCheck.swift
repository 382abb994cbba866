import FoldKitCore
import FoldKitRuntime

/// Tells elements that the precision itself cannot resolve from a fold error, for the layers whose
/// largest deviation is over the allowance of `ToleranceBudget`.
///
/// The allowance is a per-layer rule: K x the control's largest deviation. A single element whose value
/// is a sum of large terms that cancel (yolov4-csp-swish's logistic outputs: terms up to 1.7e8 summing to
/// +-40), or a deep network that amplifies rounding (random batch-norm statistics), can land far from the
/// reference in the folded run while the control happens to land near it: rounding decides such an
/// element, and which run it favours is chance. The check measures each such element's own spread:
///
/// 1. While the passes run, `collect` keeps, per failing layer, the elements over the allowance (index,
///    reference, candidate deviation, control deviation), at most `elementLimit` per layer: a fold error
///    moves whole channels, far more elements than rounding singles out.
/// 2. `examine` runs the original network `perturbedRuns` more times in the same precision, each with
///    every layer output and parameter perturbed by up to 2u relative (`RoundingPerturbation`, seeds 1
///    ... perturbedRuns), in lockstep, up to the last layer it needs, and stops at the first layer some of
///    whose elements are not explained (the verdict is then decided).
/// 3. Per element, spread = max |run - reference| over the control and the perturbed runs (after a
///    logistic or tanh: of the activation's input, `SaturatingActivation`); the element
///    is ill-conditioned when the candidate's deviation is finite and at most K x spread (K as in
///    `ToleranceBudget.controlFactor`). A layer all of whose elements over the allowance are
///    ill-conditioned passes, and the report names them (`ConditioningFinding`).
/// 4. Where a kept element's reference is saturated (a logistic of 0 or 1: its input is lost), the inputs
///    are read from runs of the network with that activation made linear - the reference (float64), the
///    control and the perturbed runs again, up to the layer - and the candidate, known by its output only,
///    deviates by the distance from the reference input to the inputs that give its output
///    (`SaturatingActivation.inputDistance`). An element whose sign the precision cannot resolve (terms of
///    1e18 summing to -1e12 after 344 layers of float32 rounding) is then told from a flipped sign that
///    rounding does not explain.
///
/// The spread comes from runs of the original network only: a fold error is in none of them, so it is
/// excused only where it is smaller than K x what the precision itself moves that element by.
struct ConditioningCheck {
    /// Perturbed runs of the original network besides the control.
    static let perturbedRuns = 4
    /// Elements over the allowance examined per layer: at most max(64, elements / 16).
    static func elementLimit(elements: Int) -> Int { max(64, elements / 16) }
    /// Elements kept over all layers (4 numbers each).
    static let totalLimit = 1 << 21

    /// One layer's elements over the allowance.
    private struct Elements {
        /// Where the values are compared before a saturating activation, the activation.
        var saturating: SaturatingActivation?
        var indices: [Int] = []
        /// The reference values (the activation's inputs with `saturating`).
        var reference: [Double] = []
        var deviation: [Double] = []
        /// max |run - reference| so far (starting with the control's).
        var spread: [Double] = []
        /// The candidate's values as given (the activation's outputs with `saturating`).
        var candidate: [Double] = []
        /// Some kept element's reference is saturated: the inputs are read from linear runs (step 4).
        var referenceSaturated = false
    }

    private var pending: [Int: Elements] = [:]
    /// Layers over their allowance whose elements are not examined, and why.
    private var skipped: [Int: (count: Int, reason: String)] = [:]
    private var kept = 0

    /// Whether there is anything for `examine` to do.
    var hasPendingElements: Bool { !pending.isEmpty }

    /// Keeps the elements of failing layer `index` whose |candidate - reference| exceeds `allowed`; with
    /// `saturating`, their deviations and spreads are measured on the activation's input.
    mutating func collect<C: BinaryFloatingPoint>(
        layer index: Int, reference: [Double], candidate: [C], control: [C], allowed: Double, saturating: SaturatingActivation?
    ) {
        let n = min(reference.count, candidate.count, control.count)
        guard reference.count == candidate.count, reference.count == control.count else {
            skipped[index] = (0, "the runs' outputs differ in length")
            return
        }
        let limit = min(Self.elementLimit(elements: n), Self.totalLimit - kept)
        var elements = Elements(saturating: saturating), count = 0
        let value = { (y: Double) in saturating?.input(producing: y) ?? y }
        for i in 0..<n {
            guard elementDeviation(reference[i], Double(candidate[i])) > allowed else { continue }
            count += 1
            if count > limit { continue }
            let r = value(reference[i])
            elements.indices.append(i)
            elements.reference.append(r)
            elements.deviation.append(elementDeviation(r, value(Double(candidate[i]))))
            elements.spread.append(elementDeviation(r, value(Double(control[i]))))
            elements.candidate.append(Double(candidate[i]))
            if saturating?.isSaturated(reference[i]) == true { elements.referenceSaturated = true }
        }
        if count > limit {
            skipped[index] = (
                count,
                limit < Self.elementLimit(elements: n)
                    ? "more elements over the allowance than the check keeps over all layers"
                    : "\(count) of \(n) elements over the allowance, more than rounding singles out (at most \(limit))"
            )
        } else if count > 0 {
            pending[index] = elements
            kept += count
        }
    }

    /// The findings for every layer `collect` kept or skipped: runs the perturbed passes (see the type's
    /// documentation) and judges each kept element. Layers after the first one not excused are reported
    /// as not examined.
    func examine(
        network: Network, input: [Float], precision: VerificationPrecision, productThreading: ProductThreading
    ) throws -> [Int: ConditioningFinding] {
        var findings: [Int: ConditioningFinding] = [:]
        let firstSkipped = skipped.keys.min() ?? Int.max
        let examined = pending.keys.filter { $0 < firstSkipped }.sorted()
        if let last = examined.last {
            let passes = try (1...Self.perturbedRuns).map { seed in
                try Executor<Float>(
                    network: network,
                    options: precision.executorOptions(
                        productThreading: productThreading,
                        perturbation: RoundingPerturbation(seed: UInt64(seed), relative: 2 * precision.unitRoundoff))
                ).start(input: input, retention: .outputsOnly)
            }
            var states = pending
            let factor = ToleranceBudget.controlFactor(precision)
            var next = examined.makeIterator()
            var target = next.next()
            for index in 0...last {
                var outputs: [[Float]] = []
                for pass in passes {
                    guard let (_, output) = try pass.next() else { break }
                    outputs.append(output)
                }
                guard index == target, var elements = states[index] else { continue }
                target = next.next()
                if elements.referenceSaturated, let saturating = elements.saturating,
                    let measured = try Self.measureInputs(
                        elements, saturating: saturating, layer: index, network: network, input: input, precision: precision,
                        productThreading: productThreading)
                {
                    elements = measured
                } else {
                    for output in outputs where output.count > (elements.indices.last ?? 0) {
                        for (k, i) in elements.indices.enumerated() {
                            let y = Double(output[i])
                            let value = elements.saturating?.input(producing: y) ?? y
                            elements.spread[k] = max(elements.spread[k], elementDeviation(elements.reference[k], value))
                        }
                    }
                }
                let finding = Self.judge(elements, runs: outputs.count + 1, factor: factor, shape: network.layers[index].outputShape)
                findings[index] = finding
                states[index] = nil
                if !finding.excusesLayer { break }
            }
        }
        // Pending layers after the first one decided (or skipped) are not examined: the verdict is taken.
        for index in pending.keys where findings[index] == nil {
            findings[index] = ConditioningFinding(
                elementsOverAllowance: pending[index]?.indices.count ?? 0, illConditioned: 0, runs: 0, leastExplained: nil,
                notExamined: "an earlier layer is over tolerance beyond what rounding explains")
        }
        for (index, skip) in skipped {
            findings[index] = ConditioningFinding(
                elementsOverAllowance: skip.count, illConditioned: 0, runs: 0, leastExplained: nil, notExamined: skip.reason)
        }
        return findings
    }

    /// Step 4: the kept elements of layer `index` measured on the saturating activation's input, read from
    /// runs of `network` with that activation linear (`LayerKind.replacingFinalActivation`) up to `index`:
    /// reference = the float64 run's value; spread = the largest |run - reference| over the unperturbed
    /// run in `precision` (the control) and the perturbed runs (the same seeds as step 2); deviation = the
    /// candidate's `SaturatingActivation.inputDistance`. nil (measure as before) when the producer cannot
    /// be made linear or a run's output is shorter than the elements need.
    private static func measureInputs(
        _ elements: Elements, saturating: SaturatingActivation, layer index: Int, network: Network, input: [Float],
        precision: VerificationPrecision, productThreading: ProductThreading
    ) throws -> Elements? {
        guard let linear = network.layers[saturating.producer].kind.replacingFinalActivation(with: .linear) else { return nil }
        var linearised = network
        linearised.layers[saturating.producer].kind = linear
        let needed = (elements.indices.last ?? 0) + 1
        func output<Scalar: ExecutorScalar>(of pass: ExecutorPass<Scalar>) throws -> [Double]? {
            while let (at, values) = try pass.next() {
                if at == index { return values.count >= needed ? values.map { Double($0) } : nil }
            }
            return nil
        }
        guard
            let reference = try output(
                of: Executor<Double>(network: linearised, options: ExecutorOptions(streamParameters: true, productThreading: productThreading))
                    .start(input: input.map(Double.init), retention: .outputsOnly))
        else { return nil }
        var measured = elements
        for (k, i) in elements.indices.enumerated() {
            measured.reference[k] = reference[i]
            measured.deviation[k] = saturating.inputDistance(from: reference[i], toInputsProducing: elements.candidate[k])
            measured.spread[k] = 0
        }
        let perturbations = [nil] + (1...perturbedRuns).map { RoundingPerturbation(seed: UInt64($0), relative: 2 * precision.unitRoundoff) }
        for perturbation in perturbations {
            let pass = try Executor<Float>(
                network: linearised, options: precision.executorOptions(productThreading: productThreading, perturbation: perturbation)
            ).start(input: input, retention: .outputsOnly)
            guard let run = try output(of: pass) else { return nil }
            for (k, i) in elements.indices.enumerated() {
                measured.spread[k] = max(measured.spread[k], elementDeviation(reference[i], run[i]))
            }
        }
        return measured
    }

    private static func judge(_ elements: Elements, runs: Int, factor: Double, shape: ActivationShape) -> ConditioningFinding {
        var explained = 0, worst = -1, worstRatio = -1.0
        for k in elements.indices.indices {
            let (d, s) = (elements.deviation[k], elements.spread[k])
            if d.isFinite && d <= factor * s { explained += 1 }
            let ratio = s > 0 ? d / s : .infinity
            if ratio > worstRatio || worst < 0 { (worst, worstRatio) = (k, ratio) }
        }
        let plane = max(shape.height * shape.width, 1), width = max(shape.width, 1)
        let least = worst < 0 ? nil : elements.indices[worst]
        return ConditioningFinding(
            elementsOverAllowance: elements.indices.count, illConditioned: explained, runs: runs, comparedBefore: elements.saturating?.name,
            leastExplained: least.map {
                .init(
                    at: .init(channel: $0 / plane, y: ($0 % plane) / width, x: $0 % width), deviation: elements.deviation[worst],
                    spread: elements.spread[worst])
            }, notExamined: nil)
    }
}
