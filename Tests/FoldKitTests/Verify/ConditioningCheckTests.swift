import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit
@testable import FoldKitVerify

/// The conditioning check of `Verifier.verify` on a network built in code to cancel: a 1x1 convolution
/// with weights [1, -1] over two input channels near 1e6 that differ by a few float32 units, so that each
/// output is a small difference of large terms. The folded weights (the batch-norm scale times +-1,
/// rounded to float32) make the folded run miss that difference by about one unit of 1e6 x scale, while
/// the control, whose weights are exact, does not: the layer rule fails, and the check must excuse the
/// elements (the perturbed runs of the original network miss by as much) - but not a fold error.
final class ConditioningCheckTests: XCTestCase {
    typealias S = RuntimeTestSupport
    let shape = ActivationShape(channels: 2, height: 4, width: 4)

    private func network(activation: Activation) throws -> Network {
        let bn = BatchNorm(
            gamma: S.tensor([0.7]), beta: S.tensor([0.01]), mean: S.tensor([0.003]), variance: S.tensor([0.3]), convention: .darknet)
        return try S.network(input: shape, outputs: [0]) { b in
            try b.append(
                kind: .convolution(
                    Convolution(
                        inputChannels: 2, outputChannels: 1, kernelHeight: 1, kernelWidth: 1,
                        weights: WeightTensor(shape: [1, 2, 1, 1], values: [1, -1]), bias: nil, batchNorm: bn, activation: activation)),
                inputs: [Network.inputIndex], source: S.source)
        }
    }

    /// Channel 0: 1e6 + k / 16 (k = 1 ... 16, exact in float32), channel 1: 1e6.
    private var input: ModelInput {
        let plane = shape.height * shape.width
        let first = (1...plane).map { Float(1e6) + Float($0) / 16 }
        return ModelInput(values: first + [Float](repeating: 1e6, count: plane), origin: "cancelling")
    }

    private func verify(_ network: Network, folded: Network, options: Verifier.Options = .init()) throws -> VerificationReport {
        try Verifier.verify(original: network, folded: folded, input: input, options: options)
    }

    func testCancellingElementsAreExcusedAndNamed() throws {
        for activation in [Activation.linear, .logistic] {
            let network = try network(activation: activation)
            let report = try verify(network, folded: FoldBatchNorm.apply(to: network))
            let layer = try XCTUnwrap(report.precisions.first?.layers.first)
            XCTAssertGreaterThan(layer.candidate.maxAbsDeviation, layer.allowed, "\(activation): the layer rule alone would fail")
            let finding = try XCTUnwrap(layer.conditioning, report.text())
            XCTAssertTrue(finding.excusesLayer, report.text())
            XCTAssertTrue(layer.pass)
            XCTAssertTrue(report.passed, report.text())
            XCTAssertEqual(finding.runs, ConditioningCheck.perturbedRuns + 1)
            XCTAssertEqual(finding.illConditioned, finding.elementsOverAllowance)
            XCTAssertEqual(finding.comparedBefore, activation == .logistic ? "logistic" : nil)
            let least = try XCTUnwrap(finding.leastExplained)
            XCTAssertLessThanOrEqual(least.deviation, ToleranceBudget.controlFactor(.float32) * least.spread)
            let text = report.text()
            XCTAssertTrue(text.contains("ok*"), text)
            XCTAssertTrue(text.contains("\(finding.illConditioned) ill-conditioned"), text)
            XCTAssertTrue(text.contains("ill-conditioned elements in 1 layers (ok*)"), text)
        }
    }

    /// The same network with the first folded weight 1e-4 off (the second is right, so the error does not
    /// cancel): the deviation is far beyond what rounding moves those elements by, and the layer fails
    /// with the check's finding in the report. (Both weights off by the same factor would scale the small
    /// difference only - an error rounding already hides, and the check rightly excuses.)
    func testFoldErrorOnCancellingElementsIsNotExcused() throws {
        let network = try network(activation: .linear)
        var folded = try FoldBatchNorm.apply(to: network)
        guard case .convolution(var conv) = folded.layers[0].kind else { return XCTFail("layer 0 is not a convolution") }
        var weights = try conv.weights.floats()
        weights[0] *= 1.0001
        conv.weights = WeightTensor(shape: conv.weights.shape, values: weights)
        folded.layers[0].kind = .convolution(conv)
        let report = try verify(network, folded: folded)
        XCTAssertFalse(report.passed)
        XCTAssertEqual(report.firstLayerOverTolerance?.index, 0)
        let finding = try XCTUnwrap(report.precisions.first?.layers.first?.conditioning)
        XCTAssertFalse(finding.excusesLayer)
        XCTAssertLessThan(finding.illConditioned, finding.elementsOverAllowance)
        XCTAssertTrue(report.text().contains("FAIL: float32"), report.text())
    }

    /// A 1x1 convolution [1, -1] with a logistic over two channels `first` and `second` (every element the
    /// same): the input of the logistic is first - second, saturated in the reference.
    private func saturatedVerdict(first: Float, second: Float) throws -> (report: VerificationReport, reference: Double) {
        let network = try S.network(input: shape, outputs: [0]) { b in
            try b.append(
                kind: .convolution(
                    Convolution(
                        inputChannels: 2, outputChannels: 1, kernelHeight: 1, kernelWidth: 1,
                        weights: WeightTensor(shape: [1, 2, 1, 1], values: [1, -1]), bias: WeightTensor(shape: [1], values: [0]),
                        batchNorm: nil, activation: .logistic)),
                inputs: [Network.inputIndex], source: S.source)
        }
        let plane = shape.height * shape.width
        let input = ModelInput(values: [Float](repeating: first, count: plane) + [Float](repeating: second, count: plane), origin: "saturating")
        // An engine whose logistic gave 1 where the reference's is 0, at one element.
        var engine = [Float](repeating: 0, count: plane)
        engine[5] = 1
        let report = try Verifier.verifyEngineOutputs(
            original: network, engineOutputs: [0: engine], input: input, options: .init(engineOutputs: "an engine"))
        return (report, Double(first) - Double(second))
    }

    /// The logistic's input is -4096 = (1e10 - 4096) - 1e10: float32 resolves 1e10 to 1024, so rounding moves
    /// the input by thousands, though no run crosses 0 and every one saturates to 0 like the reference. An
    /// engine's 1 there is a sign float32 cannot resolve: the check reads the inputs from linear runs (the
    /// saturated outputs alone would give a spread of 0) and excuses it.
    func testFlippedSaturatedLogisticBelowResolutionIsExcused() throws {
        let (report, reference) = try saturatedVerdict(first: 1e10 - 4096, second: 1e10)
        XCTAssertEqual(1 / (1 + exp(-reference)), 0, "the float64 reference is saturated")
        let layer = try XCTUnwrap(report.precisions.first?.layers.first)
        XCTAssertGreaterThan(layer.candidate.maxAbsDeviation, layer.allowed, "the layer rule alone fails")
        let finding = try XCTUnwrap(layer.conditioning, report.text())
        XCTAssertEqual(finding.comparedBefore, "logistic")
        XCTAssertEqual(finding.elementsOverAllowance, 1)
        XCTAssertTrue(finding.excusesLayer, report.text())
        XCTAssertTrue(report.passed, report.text())
        let least = try XCTUnwrap(finding.leastExplained)
        // From -4096 to the inputs whose float32 logistic is 1 (over ln(2^24 - 1) = 16.6).
        XCTAssertEqual(least.deviation, 4096 + log(Double(1 << 24) - 1), accuracy: 1e-3)
        XCTAssertGreaterThan(least.spread, 400, "the perturbed runs move the input by rounding 1e10's terms")
        XCTAssertLessThan(least.spread, 4096, "no run crosses 0")
    }

    /// The same flip where the input is -4096 = -4096 - 0, a sum float32 holds to 1e-3: rounding does not
    /// explain it, and the layer fails.
    func testFlippedSaturatedLogisticOfResolvedInputFails() throws {
        let (report, _) = try saturatedVerdict(first: -4096, second: 0)
        let finding = try XCTUnwrap(report.precisions.first?.layers.first?.conditioning, report.text())
        XCTAssertFalse(finding.excusesLayer, report.text())
        XCTAssertFalse(report.passed)
        let least = try XCTUnwrap(finding.leastExplained)
        XCTAssertLessThan(least.spread, 1e-2)
    }

    /// Every layer kind whose operation has a final activation can have it replaced (the check's linear
    /// runs rely on it), and no other kind claims to.
    func testFinalActivationIsReplacedWhereThereIsOne() throws {
        let models = [
            ["real-models/yolo-fastest-1.1/yolo-fastest-1.1.cfg", "real-models/yolo-fastest-1.1/yolo-fastest-1.1.weights"],
            ["real-models/keras_fer2013_mini_XCEPTION/fer2013_mini_XCEPTION.102-0.66.hdf5"],
        ]
        var replaced = 0, kept = 0
        for files in models {
            let network = try ModelLoader.load(paths: files.map { try TestData.sharedFile($0).path })
            for layer in network.layers {
                let linear = layer.kind.replacingFinalActivation(with: .linear)
                XCTAssertEqual(linear == nil, layer.kind.operation.finalActivation == nil, "\(files[0]) layer \(layer.index)")
                if let linear {
                    XCTAssertEqual(linear.operation.finalActivation, .linear)
                    replaced += 1
                } else {
                    kept += 1
                }
            }
        }
        XCTAssertGreaterThan(replaced, 10)
        XCTAssertGreaterThan(kept, 10)
    }

    /// --rtol replaces the control-based rule: no check, the rule the user chose decides.
    func testRelativeToleranceSkipsTheCheck() throws {
        let network = try network(activation: .linear)
        let report = try verify(network, folded: FoldBatchNorm.apply(to: network), options: .init(relativeTolerance: 1e-9))
        XCTAssertFalse(report.passed)
        XCTAssertNil(report.precisions.first?.layers.first?.conditioning)
    }

    /// More elements over the allowance than rounding singles out are not examined: the layer fails and
    /// the finding says why.
    func testTooManyElementsAreNotExamined() throws {
        var check = ConditioningCheck()
        let n = 4096
        let reference = [Double](repeating: 1, count: n)
        check.collect(
            layer: 3, reference: reference, candidate: [Float](repeating: 2, count: n), control: [Float](repeating: 1, count: n),
            allowed: 0.5, saturating: nil)
        XCTAssertFalse(check.hasPendingElements)
        XCTAssertEqual(ConditioningCheck.elementLimit(elements: n), 256)
        let findings = try check.examine(
            network: network(activation: .linear), input: input.values, precision: .float32, productThreading: .library)
        let finding = try XCTUnwrap(findings[3])
        XCTAssertFalse(finding.excusesLayer)
        XCTAssertEqual(finding.elementsOverAllowance, n)
        XCTAssertEqual(finding.runs, 0)
        XCTAssertTrue(finding.notExamined?.contains("more than rounding singles out") == true, "\(finding)")
    }
}
