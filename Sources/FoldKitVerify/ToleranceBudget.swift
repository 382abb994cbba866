import FoldKitCore

/// The per-layer tolerance of `foldkit verify`, grounded in a control run (Docs/Verify.md, "Tolerance").
///
/// The control is the original, unfolded network run in the candidate's precision; its deviation from
/// the float64 reference is what that precision by itself costs on this network and input, layer by
/// layer. The folded network may deviate by a small factor more, never by more than that:
///
///     floor(layer)       = safety * u * sqrt(K) * max|ref|          (float32)
///                        = safety * u16 * max|ref|                  (float16 storage)
///     fromControl(layer) = controlFactor(precision) * max|control - ref|
///     carried(layer)     = gain * (max or sum over inputs of allowance(input)) + floor(layer)
///                          (non-expanding layers only, see `carryGain`)
///     allowance(layer)   = max(floor, fromControl, carried)
///     allowed(layer)     = atol + allowance(layer)
///
/// with u the unit roundoff (float32 2^-24, float16 2^-11) and K the accumulation length (convolution
/// Cin/groups x kh x kw, transposed convolution Cin x ceil(kh/sy) x ceil(kw/sx), connected: inputs, average
/// pools: window, softmax: elements summed, shortcuts and add, subtract and average merges: inputs, layer
/// normalization: channels, otherwise 1).
/// The floor covers the rounding a layer adds itself when the control happens to be nearly exact there; it
/// does not grow along the graph: error carried in from earlier layers is what the control measures.
///
/// A layer that cannot grow an absolute error (every |df/dx| <= 1 in the max norm: clamps, saturating and
/// piecewise-linear activations with slopes <= 1, max and average pooling, routes, reshapes, channel
/// windows, nearest and bilinear upsampling by |scale| <= 1 (bilinear: a convex combination times scale),
/// softmax, add, subtract, average, maximum and minimum merges) carries its inputs' allowances over: a
/// relu6 that cuts max|ref| from 30 to 6 keeps the absolute error its input was allowed, so the clamp
/// raises no false alarm, and a fold error is caught where it arises, at the layer that produces it.
public enum ToleranceBudget {
    /// K in `allowed = max(floor, K x control deviation, carried) + atol`, per precision: 8 in float32, 16
    /// with float16 storage. Chosen from measurements on real and seeded networks (Docs/Verify.md, "Why
    /// K = 8 and 16"): the folded network's deviation was at most 2.1 x the control's in float32 and 7.5 x
    /// with float16 storage (the folded weights and biases are rounded to float16, the control's batch-norm
    /// statistics are not).
    public static func controlFactor(_ precision: VerificationPrecision) -> Double {
        precision == .float32 ? 8 : 16
    }
    /// How many times the control's IoU shortfall (1 - smallest IoU of its boxes against the reference's)
    /// the folded boxes may show: the layers' control factor K of the precision, since box coordinates
    /// inherit the head's deviation (a 2x factor was measured too tight with float16 storage: seeded
    /// yolov2-tiny with `wide` weights lost 2.4 times the control's shortfall, every layer within
    /// tolerance).
    public static func boxFactor(_ precision: VerificationPrecision) -> Float { Float(controlFactor(precision)) }

    /// The smallest IoU folded boxes must keep in `precision`:
    ///
    ///     min(fixed, 1 - boxFactor(precision) x (1 - controlSmallestIoU))
    ///
    /// so that what the precision itself moves the boxes by (measured by the control: float16 storage,
    /// or float32 where a head's exp(tw) amplifies float32 rounding) is no false alarm, while a fold that
    /// moves them much further than that still fails. In float32 on ordinary heads the control's boxes
    /// agree to ~1e-5 and `fixed` stands.
    public static func minimumBoxIoU(fixed: Float, controlSmallestIoU: Float, precision: VerificationPrecision) -> Float {
        guard controlSmallestIoU.isFinite else { return fixed }
        return min(fixed, max(0, 1 - boxFactor(precision) * (1 - controlSmallestIoU)))
    }

    /// The factor on the analytic floor.
    public static let safety = 16.0

    /// The accumulation length K of a layer: the products or terms summed into one output element, as its
    /// operation declares it (`LayerOperation.accumulationLength`).
    public static func accumulationLength(_ layer: Layer, network: Network) -> Int {
        layer.kind.operation.accumulationLength(inputShapes: layer.inputs.map(network.shape(of:)), outputShape: layer.outputShape)
    }

    /// The floor's coefficient on max|ref| for `layer` in `precision`.
    public static func floorCoefficient(_ layer: Layer, network: Network, precision: VerificationPrecision) -> Double {
        switch precision {
        case .float32: return safety * precision.unitRoundoff * Double(accumulationLength(layer, network: network)).squareRoot()
        case .float16Storage: return safety * precision.unitRoundoff
        }
    }

    /// How inputs' allowances combine in a non-expanding layer (`DeviationCarry.Combination`).
    public typealias Combination = DeviationCarry.Combination

    /// For a layer whose output cannot grow its inputs' absolute error by more than `gain` <= 1 (in the max
    /// norm), the gain and how the inputs combine, as its operation declares it (`LayerOperation.deviationCarry`);
    /// nil for every other layer (convolutions and transposed convolutions, connected and locally connected,
    /// batch norm, channel affine and layer normalization, products, multiply and divide merges, PReLU,
    /// activations with |f'| > 1 such as swish, mish, gelu, selu). Softmax's Jacobian diag(p) - p p^T has
    /// max-norm 2 max p_i (1 - p_i) <= 1/2.
    public static func carryGain(_ layer: Layer) -> (gain: Double, combination: Combination)? {
        layer.kind.operation.deviationCarry.map { ($0.gain, $0.combination) }
    }

    /// sup |f'(x)| of an activation when it is at most 1; nil when it can exceed 1 (`Activation.lipschitzBound`).
    public static func lipschitzBound(_ activation: Activation) -> Double? { activation.lipschitzBound }
}
