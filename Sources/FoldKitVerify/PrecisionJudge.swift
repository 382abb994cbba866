import FoldKitCore
import FoldKitRuntime

/// Judges one precision layer by layer as the passes advance: each layer's candidate deviation against
/// the allowance `ToleranceBudget` derives from the control's deviation and the inputs' allowances.
struct PrecisionJudge {
    let precision: VerificationPrecision
    let network: Network
    let absoluteTolerance: Double
    /// The user's --rtol: replaces the control-based allowance by rtol x max|ref|.
    let relativeTolerance: Double?
    /// The allowance (atol excluded) of every layer judged so far, for the layers that carry it.
    private var allowances: [Double]
    /// The allowance of the network input: float16 storage rounds it on entry.
    private let inputAllowance: Double
    private(set) var verdicts: [LayerVerdict] = []
    /// The elements over the allowance of failing layers, for `checkConditioning`.
    private var conditioning = ConditioningCheck()

    init(precision: VerificationPrecision, network: Network, input: [Float], absoluteTolerance: Double, relativeTolerance: Double?) {
        self.precision = precision
        self.network = network
        self.absoluteTolerance = absoluteTolerance
        self.relativeTolerance = relativeTolerance
        allowances = [Double](repeating: 0, count: network.layers.count)
        let largestInput = input.reduce(0) { max($0, abs(Double($1))) }
        inputAllowance = precision == .float16Storage ? precision.unitRoundoff * largestInput : 0
    }

    /// Judges layer `index` (called in layer order).
    mutating func judge<C: BinaryFloatingPoint & Sendable>(index: Int, reference: [Double], control: [C], candidate: [C]) -> LayerVerdict {
        let layer = network.layers[index]
        let (deviation, controlDeviation) = LayerDeviation.measure(layer: layer, reference: reference, candidate: candidate, control: control)
        let floor = ToleranceBudget.floorCoefficient(layer, network: network, precision: precision) * deviation.maxAbsReference
        let fromControl = controlDeviation.maxAbsDeviation.isFinite ? ToleranceBudget.controlFactor(precision) * controlDeviation.maxAbsDeviation : 0
        var carried: Double?
        if let (gain, combination) = ToleranceBudget.carryGain(layer) {
            let inputs = layer.inputs.map { $0 == Network.inputIndex ? inputAllowance : allowances[$0] }
            let combined = combination == .sum ? inputs.reduce(0, +) : (inputs.max() ?? 0)
            carried = gain * combined + floor
        }
        var allowance: Double, allowedBy: String
        if let rtol = relativeTolerance {
            (allowance, allowedBy) = (rtol * deviation.maxAbsReference, "rtol")
        } else {
            (allowance, allowedBy) = (floor, "floor")
            if fromControl > allowance { (allowance, allowedBy) = (fromControl, "control") }
            if let carried, carried > allowance { (allowance, allowedBy) = (carried, "carried") }
        }
        allowances[index] = allowance
        let allowed = absoluteTolerance + allowance
        let shape = layer.outputShape
        let verdict = LayerVerdict(
            index: index, name: layer.name, type: network.typeName(of: layer), shape: [shape.channels, shape.height, shape.width],
            control: controlDeviation, candidate: deviation, floor: floor, fromControl: fromControl, carried: carried,
            allowed: allowed, allowedBy: allowedBy, pass: deviation.maxAbsDeviation <= allowed)
        verdicts.append(verdict)
        if !verdict.pass, relativeTolerance == nil {
            conditioning.collect(
                layer: index, reference: reference, candidate: candidate, control: control, allowed: allowed,
                saturating: SaturatingActivation(producing: index, in: network, precision: precision))
        }
        return verdict
    }

    /// Whether some failing layer has elements for `checkConditioning` to examine.
    var hasConditioningWork: Bool { conditioning.hasPendingElements }

    /// Runs the conditioning check (`ConditioningCheck`) over the failing layers: each gets its finding,
    /// and passes when every element over its allowance is ill-conditioned. `input` is the passes' input.
    mutating func checkConditioning(input: [Float], productThreading: ProductThreading) throws {
        let findings = try conditioning.examine(network: network, input: input, precision: precision, productThreading: productThreading)
        for (index, finding) in findings where index < verdicts.count {
            verdicts[index].conditioning = finding
            if finding.excusesLayer { verdicts[index].pass = true }
        }
    }

    var result: PrecisionVerdict { PrecisionVerdict(precision: precision, layers: verdicts) }
}
