import FoldKitCore
import Foundation

/// The input of a saturating activation recovered from its output, so that the conditioning check
/// (`ConditioningCheck`) compares how far the runs moved an element before the activation squeezed it.
///
/// A logistic maps an input of -40 to 4e-18 and one of +17 to 1 (in float32): rounding that moves the
/// input by 30 in one run moves the output by 1e-5, and by 57 in another, by 1. Compared after the
/// activation, the two runs look unrelated; compared before it, they are two samples of the same
/// rounding noise. For these activations the check compares inputs:
///
///     logistic: x = ln(y) - ln(1 - y),        y clamped to [tiny, 1 - u]
///     tanh:     x = atanh(y),                 y clamped to [-(1 - u), 1 - u]
///
/// with u the precision's unit roundoff (the storage cannot come closer to 1 than that: a float32 logistic
/// of any input over ln(2^24) = 16.6 is 1) and tiny its smallest positive value (2^-149 in float32,
/// 2^-24 in float16 storage). Every value compared - reference, candidate and runs - is clamped alike.
///
/// A value at the clamp is saturated: its input is anywhere beyond the clamp's input (a float32 logistic of
/// 1 says only "input over 16.6", a float64 one of 0 "input under -745"). Where the reference is saturated,
/// the check reads the inputs themselves from runs of the network with this activation made linear
/// (`producer`), and measures a candidate's output by how far the reference input is from every input
/// that gives it (`inputDistance`).
struct SaturatingActivation {
    let activation: Activation
    /// The layer whose activation it is (the layer judged, or the one its pass-through layers read).
    let producer: Int
    let unitRoundoff: Double
    let smallest: Double

    /// The invertible saturating activation whose output layer `index` holds - its own (an activation
    /// layer, or the fused activation of a convolution, connected layer or shortcut), or, through layers
    /// that pass their single input on unchanged (detection heads, identities, reshapes), its input's -
    /// or nil.
    init?(producing index: Int, in network: Network, precision: VerificationPrecision) {
        var current = index
        var found: Activation?
        while found == nil, current >= 0, current < network.layers.count {
            let layer = network.layers[current]
            let operation = layer.kind.operation
            if operation.passesInputThrough {
                guard layer.inputs.count == 1 else { return nil }
                current = layer.inputs[0]
                continue
            }
            guard let activation = operation.finalActivation else { return nil }
            found = activation
        }
        guard let found, found == .logistic || found == .tanh else { return nil }
        activation = found
        producer = current
        unitRoundoff = precision.unitRoundoff
        smallest = precision == .float32 ? Double(Float.leastNonzeroMagnitude) : 0x1.0p-24
    }

    /// The input x with activation(x) = y, after clamping y as the type's documentation says.
    func input(producing y: Double) -> Double {
        guard y.isFinite else { return y }
        switch activation {
        case .logistic:
            let clamped = min(max(y, smallest), 1 - unitRoundoff)
            return log(clamped) - log1p(-clamped)
        default:
            let clamped = min(max(y, -(1 - unitRoundoff)), 1 - unitRoundoff)
            return atanh(clamped)
        }
    }

    /// Whether `y` is at the clamp: its input could be anything beyond the clamp's.
    func isSaturated(_ y: Double) -> Bool {
        isSaturatedHigh(y) || isSaturatedLow(y)
    }

    private func isSaturatedHigh(_ y: Double) -> Bool { y >= 1 - unitRoundoff }

    private func isSaturatedLow(_ y: Double) -> Bool {
        activation == .logistic ? y <= smallest : y <= -(1 - unitRoundoff)
    }

    /// The distance from input `x` to the nearest input the activation maps to `y`: |x - input(y)|, or for
    /// a saturated `y` the distance to the half-line of inputs beyond the clamp's (0 when `x` is on it).
    func inputDistance(from x: Double, toInputsProducing y: Double) -> Double {
        guard x.isFinite, y.isFinite else { return .infinity }
        let edge = input(producing: y)
        if isSaturatedHigh(y) { return max(0, edge - x) }
        if isSaturatedLow(y) { return max(0, x - edge) }
        return abs(x - edge)
    }

    /// "logistic" or "tanh", for the report.
    var name: String { activation == .logistic ? "logistic" : "tanh" }
}
