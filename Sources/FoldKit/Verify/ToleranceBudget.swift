import FoldKitCore

/// The default per-layer tolerance, derived from the arithmetic instead of picked by hand.
///
/// Each layer adds rounding error relative to its output magnitude of about
///
///     local = safety * u * sqrt(K)            (+ safety * u16 for float16 storage of the output)
///
/// where u is the unit roundoff of the candidate's arithmetic (float32: 2^-24; float16 weights: 2^-11),
/// K the accumulation length (convolution Cin/groups x kh x kw, connected: inputs, average pools: window,
/// softmax: elements summed, otherwise 1) and `safety` = 16 covers the fold's extra rounding of
/// weights and the difference between random-walk and worst-case accumulation. Error already in a
/// layer's inputs carries through, so the budget along the graph is
///
///     budget(layer) = max over inputs (budget(input)) + local(layer)
///
/// and a layer passes when max |candidate - reference| <= atol + budget(layer) * max |reference|.
public enum ToleranceBudget {
    public static let safety = 16.0
    public static let float32Roundoff = 0x1.0p-24
    public static let float16Roundoff = 0x1.0p-11

    /// The accumulation length K of a layer.
    public static func accumulationLength(_ layer: Layer, network: Network) -> Int {
        switch layer.kind {
        case .convolution(let c): return c.accumulationLength
        case .fullyConnected(let f): return f.inputCount
        case .pooling(let p): return p.kind == .average ? p.kernelHeight * p.kernelWidth : 1
        case .globalAveragePool: return network.shape(of: layer.inputs.first ?? Network.inputIndex).planeSize
        case .softmax: return layer.outputShape.count
        case .sum: return layer.inputs.count
        default: return 1
        }
    }

    /// Relative budgets for every layer, in layer order.
    public static func relativeBudgets(for network: Network, float16: Bool) -> [Double] {
        var budgets = [Double](repeating: 0, count: network.layers.count)
        for layer in network.layers {
            let k = Double(accumulationLength(layer, network: network))
            let arithmetic = float16 ? float16Roundoff : float32Roundoff
            var local = safety * arithmetic * k.squareRoot()
            if float16 { local += safety * float16Roundoff }
            let carried = layer.inputs.map { $0 == Network.inputIndex ? 0 : budgets[$0] }.max() ?? 0
            budgets[layer.index] = carried + local
        }
        return budgets
    }
}
