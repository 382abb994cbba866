import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit

/// Every kernel of `Executor<Float>` against a naive reference written here in Double, straight from
/// the formula in the layer kind's documentation (direct loops, no shared code with the runtime), on
/// one- or few-layer networks with seeded inputs. Compared through `assertClose`, so a kernel that
/// writes NaN fails. float32 rounding on accumulations of at most a few hundred terms of magnitude <= 3
/// stays far below the tolerances used (1e-5 absolute + 1e-5 relative, 1e-4 for long convolutions),
/// while a wrong index or formula is off by O(1).
final class KernelReferenceTests: XCTestCase {
    typealias S = RuntimeTestSupport

    // MARK: running

    /// The last layer's float32 output and its inferred shape.
    private func runFloat(_ network: Network, _ input: [Float]) throws -> (shape: ActivationShape, values: [Float]) {
        let outputs = try Executor<Float>(network: network).run(input: input)
        return (network.layers[network.layers.count - 1].outputShape, outputs.last ?? [])
    }

    private func check(
        _ network: Network, input: [Float], expected: [Double], shape: ActivationShape, atol: Double = 1e-5, rtol: Double = 1e-5,
        _ what: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let (ourShape, ours) = try runFloat(network, input)
        XCTAssertEqual(ourShape, shape, "\(what): output shape", file: file, line: line)
        assertClose(ours, expected, atol: atol, rtol: rtol, "\(what) float32 vs Double reference", file: file, line: line)
    }

    private func values(_ count: Int, seed: UInt64, scale: Float = 1) -> [Float] { S.seeded(count, seed: seed).map { $0 * scale } }

    // MARK: references (Double, direct loops)

    /// The activation formulas of `Activation`'s documentation (Darknet activations.h, Keras backend).
    static func activate(_ x: Double, _ a: Activation) -> Double {
        switch a {
        case .linear: return x
        case .relu: return x > 0 ? x : 0
        case .leaky(let s): return x > 0 ? x : Double(s) * x
        case .logistic: return 1 / (1 + exp(-x))
        case .tanh: return Foundation.tanh(x)
        case .relu6: return min(max(x, 0), 6)
        case .elu(let alpha): return x >= 0 ? x : Double(alpha) * (exp(x) - 1)
        case .selu(let scale, let alpha): return scale * (x >= 0 ? x : alpha * (exp(x) - 1))
        case .swish: return x / (1 + exp(-x))
        case .mish:
            let softplus = x > 20 ? x : (x < -20 ? exp(x) : log1p(exp(x)))
            return x * Foundation.tanh(softplus)
        case .hardMish: return x > 0 ? x : (x > -2 ? x * x / 2 + x : 0)
        case .ramp: return (x > 0 ? x : 0) + Double(Float(0.1)) * x
        case .gelu: return 0.5 * x * (1 + Foundation.tanh(0.797885 * x + 0.035677 * x * x * x))
        case .softplus: return log(1 + exp(x))
        case .hardSigmoid: return min(max(0.2 * x + 0.5, 0), 1)
        case .hardSigmoidRelu6: return min(max(x + 3, 0), 6) / 6
        case .hardSwish: return x * min(max(x + 3, 0), 6) / 6
        case .geluErf: return 0.5 * x * (1 + erf(x / 2.0.squareRoot()))
        case .clippedRelu(let maxValue, let slope, let threshold):
            if let m = maxValue, x >= Double(m) { return Double(m) }
            return x >= Double(threshold) ? x : Double(slope) * (x - Double(threshold))
        }
    }

    /// y = gamma * (x - mean) / sqrt(var + eps) + beta (inside) or / (sqrt(var) + eps) (outside).
    static func batchNorm(_ x: Double, channel c: Int, _ bn: BatchNorm) throws -> Double {
        let g = try bn.gamma.map { Double(try $0.floats()[c]) } ?? 1
        let b = try bn.beta.map { Double(try $0.floats()[c]) } ?? 0
        let m = Double(try bn.mean.floats()[c]), v = Double(try bn.variance.floats()[c])
        let eps = bn.convention.epsilon
        let denominator = bn.convention.placement == .insideSqrt ? (v + eps).squareRoot() : v.squareRoot() + eps
        return g * (x - m) / denominator + b
    }

    /// z[o,y,x] = sum_{i<I/g, ky, kx} W[o,i,ky,kx] * in[(o/(O/g))*(I/g) + i, y*sy - pt + ky*dy, x*sx - pl + kx*dx]
    /// (zeros outside), then + bias, batch norm, activation.
    static func convolution(_ x: [Float], _ s: ActivationShape, _ c: Convolution) throws -> (ActivationShape, [Double]) {
        let oh = (s.height + c.padding.top + c.padding.bottom - c.dilationY * (c.kernelHeight - 1) - 1) / c.strideY + 1
        let ow = (s.width + c.padding.left + c.padding.right - c.dilationX * (c.kernelWidth - 1) - 1) / c.strideX + 1
        let w = try c.weights.floats(), bias = try c.bias?.floats()
        let inPerGroup = c.inputChannels / c.groups, outPerGroup = c.outputChannels / c.groups
        var out = [Double](repeating: 0, count: c.outputChannels * oh * ow)
        for o in 0..<c.outputChannels {
            let firstInput = (o / outPerGroup) * inPerGroup
            for y in 0..<oh {
                for xo in 0..<ow {
                    var sum = 0.0
                    for i in 0..<inPerGroup {
                        for ky in 0..<c.kernelHeight {
                            for kx in 0..<c.kernelWidth {
                                let iy = y * c.strideY - c.padding.top + ky * c.dilationY
                                let ix = xo * c.strideX - c.padding.left + kx * c.dilationX
                                guard iy >= 0, iy < s.height, ix >= 0, ix < s.width else { continue }
                                let weight = Double(w[((o * inPerGroup + i) * c.kernelHeight + ky) * c.kernelWidth + kx])
                                sum += weight * Double(x[((firstInput + i) * s.height + iy) * s.width + ix])
                            }
                        }
                    }
                    if let bias { sum += Double(bias[o]) }
                    if let bn = c.batchNorm { sum = try batchNorm(sum, channel: o, bn) }
                    out[(o * oh + y) * ow + xo] = activate(sum, c.activation)
                }
            }
        }
        return (ActivationShape(channels: c.outputChannels, height: oh, width: ow), out)
    }

    /// Window for output (y, x) starts at (y*sy - top, x*sx - left); max ignores padding (-infinity),
    /// average divides by the window area or by the in-bounds count.
    static func pooling(_ x: [Float], _ s: ActivationShape, _ p: Pooling) -> (ActivationShape, [Double]) {
        let oh = (s.height + p.padding.top + p.padding.bottom - p.kernelHeight) / p.strideY + 1
        let ow = (s.width + p.padding.left + p.padding.right - p.kernelWidth) / p.strideX + 1
        var out = [Double](repeating: 0, count: s.channels * oh * ow)
        for c in 0..<s.channels {
            for y in 0..<oh {
                for xo in 0..<ow {
                    var best = -Double.infinity, sum = 0.0, inside = 0
                    for ky in 0..<p.kernelHeight {
                        for kx in 0..<p.kernelWidth {
                            let iy = y * p.strideY - p.padding.top + ky, ix = xo * p.strideX - p.padding.left + kx
                            guard iy >= 0, iy < s.height, ix >= 0, ix < s.width else { continue }
                            let v = Double(x[(c * s.height + iy) * s.width + ix])
                            best = max(best, v); sum += v; inside += 1
                        }
                    }
                    let area = p.countIncludesPadding ? p.kernelHeight * p.kernelWidth : inside
                    out[(c * oh + y) * ow + xo] = p.kind == .max ? best : sum / Double(area)
                }
            }
        }
        return (ActivationShape(channels: s.channels, height: oh, width: ow), out)
    }

    private func convolutionNetwork(_ c: Convolution, input s: ActivationShape) throws -> Network { try S.single(.convolution(c), input: s) }

    private func conv(
        _ i: Int, _ o: Int, k: Int, ky: Int? = nil, stride: Int = 1, strideY: Int? = nil, dilation: Int = 1,
        padding: Padding2D, groups: Int = 1, bias: Bool = true, batchNorm: BatchNorm? = nil,
        activation: Activation = .linear, seed: UInt64
    ) -> Convolution {
        let kh = ky ?? k
        return Convolution(
            inputChannels: i, outputChannels: o, kernelHeight: kh, kernelWidth: k, strideY: strideY ?? stride, strideX: stride,
            dilationY: dilation, dilationX: dilation, padding: padding, groups: groups,
            weights: WeightTensor(shape: [o, i / groups, kh, k], values: values(o * i / groups * kh * k, seed: seed)),
            bias: bias ? S.tensor(values(o, seed: seed + 1)) : nil, batchNorm: batchNorm, activation: activation)
    }

    private func batchNorm(_ n: Int, seed: UInt64, convention: EpsilonConvention = .darknet) -> BatchNorm {
        BatchNorm(
            gamma: S.tensor(values(n, seed: seed).map { 1 + $0 / 2 }), beta: S.tensor(values(n, seed: seed + 1)),
            mean: S.tensor(values(n, seed: seed + 2)), variance: S.tensor(values(n, seed: seed + 3).map { $0 * $0 + 0.05 }),
            convention: convention)
    }

    /// `atol`, or with `withinRoundingBudget` the rounding budget verify grants a layer, 16 u sqrt(K) max|expected|
    /// (`ToleranceBudget.floorCoefficient`, u = 2^-24, K the accumulation length): for Winograd F(4x4, 3x3),
    /// whose transforms magnify rounding by up to 8 x 8 and spread a tile's largest value over all its outputs.
    private func checkConvolution(
        _ c: Convolution, input s: ActivationShape, atol: Double = 1e-5, withinRoundingBudget: Bool = false,
        _ what: String, file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let input = values(s.count, seed: 7, scale: 2)
        let (shape, expected) = try Self.convolution(input, s, c)
        let largest = expected.map { abs($0) }.max() ?? 0
        let budget = ToleranceBudget.safety * VerificationPrecision.float32.unitRoundoff * Double(c.accumulationLength).squareRoot() * largest
        try check(
            convolutionNetwork(c, input: s), input: input, expected: expected, shape: shape,
            atol: withinRoundingBudget ? budget : atol, what, file: file, line: line)
    }

    // MARK: convolution, every path

    func testConvolutionIm2ColPaddedWithBiasAndLeaky() throws {
        try checkConvolution(
            conv(3, 5, k: 3, padding: .uniform(1), activation: .leaky(slope: 0.1), seed: 11),
            input: ActivationShape(channels: 3, height: 6, width: 7), "conv 3x3 pad 1 leaky")
    }

    func testConvolutionStridedAsymmetricPaddingAndRectangularKernel() throws {
        try checkConvolution(
            conv(4, 3, k: 3, ky: 2, stride: 2, strideY: 1, padding: Padding2D(top: 0, left: 1, bottom: 1, right: 0), seed: 12),
            input: ActivationShape(channels: 4, height: 5, width: 7), "conv 2x3 stride (1,2) asymmetric padding")
    }

    func testConvolutionDilated() throws {
        try checkConvolution(
            conv(2, 3, k: 3, dilation: 2, padding: .uniform(2), activation: .mish, seed: 13),
            input: ActivationShape(channels: 2, height: 7, width: 6), "conv 3x3 dilation 2 mish")
    }

    func testConvolutionGrouped() throws {
        try checkConvolution(
            conv(6, 4, k: 3, padding: .uniform(1), groups: 2, activation: .swish, seed: 14),
            input: ActivationShape(channels: 6, height: 5, width: 5), "conv groups 2 swish")
    }

    func testConvolutionDepthwiseStrided() throws {
        try checkConvolution(
            conv(5, 5, k: 3, stride: 2, padding: .uniform(1), groups: 5, activation: .relu6, seed: 15),
            input: ActivationShape(channels: 5, height: 7, width: 6), "depthwise 3x3 stride 2 relu6")
    }

    func testConvolutionDepthwiseWithMultiplier() throws {
        try checkConvolution(
            conv(3, 6, k: 3, padding: .uniform(1), groups: 3, seed: 16),
            input: ActivationShape(channels: 3, height: 4, width: 5), "depthwise multiplier 2")
    }

    func testConvolutionPointwise() throws {
        try checkConvolution(
            conv(7, 4, k: 1, padding: .zero, activation: .logistic, seed: 17),
            input: ActivationShape(channels: 7, height: 3, width: 5), "conv 1x1 logistic")
    }

    func testConvolutionPointwiseGrouped() throws {
        try checkConvolution(
            conv(6, 9, k: 1, padding: .zero, groups: 3, seed: 18),
            input: ActivationShape(channels: 6, height: 4, width: 3), "conv 1x1 groups 3")
    }

    func testConvolutionWinograd() throws {
        // 3x3 stride 1 ungrouped with >= 32 input channels: the Winograd path; odd sizes cover partial tiles.
        try checkConvolution(
            conv(32, 4, k: 3, padding: .uniform(1), activation: .leaky(slope: 0.1), seed: 19),
            input: ActivationShape(channels: 32, height: 7, width: 9), atol: 1e-4, "Winograd 3x3 pad 1")
        try checkConvolution(
            conv(32, 3, k: 3, padding: .zero, bias: false, seed: 20),
            input: ActivationShape(channels: 32, height: 6, width: 5), atol: 1e-4, "Winograd 3x3 no padding")
    }

    func testConvolutionWinogradLargeOutput() throws {
        // At least 17x17 outputs: F(4x4, 3x3) in both precisions.
        try checkConvolution(
            conv(32, 2, k: 3, padding: .uniform(1), seed: 21),
            input: ActivationShape(channels: 32, height: 41, width: 40), withinRoundingBudget: true, "Winograd 3x3 41x40")
    }

    func testConvolutionWithUnfoldedBatchNorm() throws {
        try checkConvolution(
            conv(3, 4, k: 3, padding: .uniform(1), bias: false, batchNorm: batchNorm(4, seed: 30), activation: .leaky(slope: 0.1), seed: 22),
            input: ActivationShape(channels: 3, height: 4, width: 4), "conv + batch norm (inside sqrt) + leaky")
        let outside = batchNorm(4, seed: 31, convention: EpsilonConvention(epsilon: 1e-3, placement: .outsideSqrt))
        try checkConvolution(
            conv(32, 4, k: 3, padding: .uniform(1), bias: true, batchNorm: outside, seed: 23),
            input: ActivationShape(channels: 32, height: 5, width: 5), atol: 1e-4, "Winograd conv + bias + batch norm (outside sqrt)")
    }

    // MARK: fully connected

    func testFullyConnected() throws {
        let s = ActivationShape(channels: 3, height: 2, width: 2)
        for (bn, activation) in [(nil, Activation.linear), (batchNorm(5, seed: 40), .leaky(slope: 0.1))] as [(BatchNorm?, Activation)] {
            let w = values(5 * 12, seed: 41), b = values(5, seed: 42)
            let layer = FullyConnected(
                inputCount: 12, outputCount: 5, weights: WeightTensor(shape: [5, 12], values: w), bias: S.tensor(b),
                batchNorm: bn, activation: activation)
            let input = values(12, seed: 43, scale: 2)
            var expected = [Double](repeating: 0, count: 5)
            for o in 0..<5 {
                var sum = Double(b[o])
                for i in 0..<12 { sum += Double(w[o * 12 + i]) * Double(input[i]) }
                if let bn { sum = try Self.batchNorm(sum, channel: o, bn) }
                expected[o] = Self.activate(sum, activation)
            }
            try check(
                S.single(.fullyConnected(layer), input: s), input: input, expected: expected,
                shape: ActivationShape(channels: 5, height: 1, width: 1), "connected \(bn == nil ? "" : "+ batch norm ")\(activation.name)")
        }
    }

    // MARK: pooling

    private func checkPooling(_ p: Pooling, input s: ActivationShape, _ what: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let input = values(s.count, seed: 50, scale: 3)
        let (shape, expected) = Self.pooling(input, s, p)
        try check(S.single(.pooling(p), input: s), input: input, expected: expected, shape: shape, what, file: file, line: line)
    }

    func testMaxPooling() throws {
        let s = ActivationShape(channels: 2, height: 6, width: 7)
        try checkPooling(Pooling(kind: .max, kernelHeight: 2, kernelWidth: 2, strideY: 2, strideX: 2), input: s, "maxpool 2/2")
        // Darknet maxpool size 3 stride 2: padding = size - 1 = 2, window offset -padding/2 = -1.
        try checkPooling(
            Pooling(kind: .max, kernelHeight: 3, kernelWidth: 3, strideY: 2, strideX: 2, padding: .uniform(1)), input: s, "darknet maxpool 3/2")
        // Darknet maxpool size 2 stride 1 (yolov3-tiny): padding 1, offset 0: pad only bottom and right.
        try checkPooling(
            Pooling(kind: .max, kernelHeight: 2, kernelWidth: 2, strideY: 1, strideX: 1, padding: Padding2D(top: 0, left: 0, bottom: 1, right: 1)),
            input: s, "darknet maxpool 2/1")
    }

    func testAveragePooling() throws {
        let s = ActivationShape(channels: 3, height: 5, width: 6)
        try checkPooling(Pooling(kind: .average, kernelHeight: 2, kernelWidth: 2, strideY: 2, strideX: 2), input: s, "avgpool 2/2")
        try checkPooling(
            Pooling(kind: .average, kernelHeight: 3, kernelWidth: 3, strideY: 1, strideX: 1, padding: .uniform(1)),
            input: s, "avgpool 3/1 same, in-bounds count")
        try checkPooling(
            Pooling(kind: .average, kernelHeight: 3, kernelWidth: 3, strideY: 2, strideX: 2, padding: .uniform(1), countIncludesPadding: true),
            input: s, "avgpool 3/2 padding counted")
    }

    func testGlobalPooling() throws {
        let s = ActivationShape(channels: 4, height: 3, width: 5)
        let input = values(s.count, seed: 51, scale: 3)
        var average = [Double](repeating: 0, count: 4), maximum = [Double](repeating: -.infinity, count: 4)
        for c in 0..<4 {
            for i in 0..<15 {
                average[c] += Double(input[c * 15 + i]) / 15
                maximum[c] = max(maximum[c], Double(input[c * 15 + i]))
            }
        }
        let one = ActivationShape(channels: 4, height: 1, width: 1)
        try check(S.single(.globalAveragePool, input: s), input: input, expected: average, shape: one, "global average pool")
        try check(S.single(.globalMaxPool, input: s), input: input, expected: maximum, shape: one, "global max pool")
    }

    // MARK: element-wise

    static let allActivations: [Activation] = [
        .linear, .relu, .leaky(slope: 0.1), .leaky(slope: 0.3), .logistic, .tanh, .relu6, .elu(alpha: 1), .elu(alpha: 0.5),
        .kerasSelu, .darknetSelu, .swish, .mish, .hardMish, .ramp, .gelu, .geluErf, .softplus, .hardSigmoid, .hardSigmoidRelu6, .hardSwish,
        .clippedRelu(maxValue: 1.5, negativeSlope: 0.2, threshold: 0.25), .clippedRelu(maxValue: nil, negativeSlope: 0, threshold: 0),
    ]

    func testEveryActivation() throws {
        let s = ActivationShape(channels: 2, height: 4, width: 8)
        // Values in [-8, 8): both sides of every branch (relu6's 6, hard_mish's -2, hard_sigmoid's +-2.5).
        let input = values(s.count, seed: 60, scale: 8)
        for activation in Self.allActivations {
            let expected = input.map { Self.activate(Double($0), activation) }
            try check(S.single(.activation(activation), input: s), input: input, expected: expected, shape: s, "activation \(activation.name)")
        }
    }

    func testBatchNormLayer() throws {
        let s = ActivationShape(channels: 3, height: 2, width: 3)
        let input = values(s.count, seed: 61, scale: 2)
        for convention in [EpsilonConvention.darknet, EpsilonConvention(epsilon: 1e-3, placement: .outsideSqrt)] {
            let bn = batchNorm(3, seed: 62, convention: convention)
            let expected = try input.indices.map { try Self.batchNorm(Double(input[$0]), channel: $0 / 6, bn) }
            try check(S.single(.batchNorm(bn), input: s), input: input, expected: expected, shape: s, "batch norm \(convention.placement.rawValue)")
        }
        // Keras scale=False, center=False: gamma 1, beta 0.
        let bare = BatchNorm(gamma: nil, beta: nil, mean: S.tensor(values(3, seed: 63)), variance: S.tensor([0.5, 1, 2]), convention: .darknet)
        let expected = try input.indices.map { try Self.batchNorm(Double(input[$0]), channel: $0 / 6, bare) }
        try check(S.single(.batchNorm(bare), input: s), input: input, expected: expected, shape: s, "batch norm without gamma and beta")
    }

    func testChannelAffine() throws {
        let s = ActivationShape(channels: 3, height: 3, width: 2)
        let input = values(s.count, seed: 64, scale: 2), scale = values(3, seed: 65), shift = values(3, seed: 66)
        let expected = input.indices.map { Double(scale[$0 / 6]) * Double(input[$0]) + Double(shift[$0 / 6]) }
        try check(
            S.single(.channelAffine(ChannelAffine(scale: S.tensor(scale), shift: S.tensor(shift))), input: s),
            input: input, expected: expected, shape: s, "channel affine")
    }

    func testPReLU() throws {
        let s = ActivationShape(channels: 3, height: 2, width: 3)
        let input = values(s.count, seed: 67, scale: 2)
        let perChannel = values(3, seed: 68), perElement = values(s.count, seed: 69)
        try check(
            S.single(.prelu(alpha: S.tensor(perChannel)), input: s), input: input,
            expected: input.indices.map { input[$0] >= 0 ? Double(input[$0]) : Double(perChannel[$0 / 6]) * Double(input[$0]) },
            shape: s, "prelu per channel")
        try check(
            S.single(.prelu(alpha: WeightTensor(shape: [3, 2, 3], values: perElement)), input: s), input: input,
            expected: input.indices.map { input[$0] >= 0 ? Double(input[$0]) : Double(perElement[$0]) * Double(input[$0]) },
            shape: s, "prelu per element")
    }

    func testSoftmax() throws {
        let s = ActivationShape(channels: 3, height: 2, width: 2)
        let input = values(s.count, seed: 70, scale: 4)
        func softmax(_ v: [Double]) -> [Double] {
            let m = v.max() ?? 0
            let e = v.map { exp($0 - m) }
            let total = e.reduce(0, +)
            return e.map { $0 / total }
        }
        // Flattened in 2 groups of 6 consecutive values (Darknet [softmax] groups=2).
        let flat = softmax(input[0..<6].map(Double.init)) + softmax(input[6..<12].map(Double.init))
        try check(S.single(.softmax(.flattened(groups: 2)), input: s), input: input, expected: flat, shape: s, "softmax flattened groups 2")
        // Over channels at each pixel (Keras axis=-1).
        var perPixel = [Double](repeating: 0, count: s.count)
        for p in 0..<4 {
            let column = softmax((0..<3).map { Double(input[$0 * 4 + p]) })
            for c in 0..<3 { perPixel[c * 4 + p] = column[c] }
        }
        try check(S.single(.softmax(.perPixelChannels), input: s), input: input, expected: perPixel, shape: s, "softmax per pixel")
    }

    // MARK: several inputs

    func testConcatenation() throws {
        let s = ActivationShape(channels: 4, height: 2, width: 3)
        let input = values(s.count, seed: 80, scale: 2)
        let relu = input.map { Double(max($0, 0)) }
        let plane = 6
        for (groups, groupID) in [(1, 0), (2, 1)] {
            let net = try S.network(input: s) { b in
                let r = try b.append(kind: .activation(.relu), inputs: [Network.inputIndex], source: S.source)
                try b.append(
                    kind: .concatenation(Concatenation(groups: groups, groupID: groupID)), inputs: [Network.inputIndex, r], source: S.source)
            }
            // Each input contributes channels [groupID*C/groups, (groupID+1)*C/groups), inputs in order.
            let per = 4 / groups, first = groupID * per
            let expected = input[(first * plane)..<((first + per) * plane)].map(Double.init) + relu[(first * plane)..<((first + per) * plane)]
            try check(
                net, input: input, expected: expected, shape: ActivationShape(channels: 2 * per, height: 2, width: 3),
                "route groups \(groups) group_id \(groupID)")
        }
    }

    func testSumWithDifferentChannelCountsAndActivation() throws {
        // Input 8 channels; A = channels 0..<4 (route groups 2 id 0), B = channels 6..<8 (route groups 4 id 3).
        let s = ActivationShape(channels: 8, height: 3, width: 2)
        let input = values(s.count, seed: 81, scale: 2)
        let plane = 6
        let a = Array(input[0..<(4 * plane)]).map(Double.init), b = Array(input[(6 * plane)..<(8 * plane)]).map(Double.init)
        for (firstIsA, activation) in [(true, Activation.linear), (false, .leaky(slope: 0.1))] {
            let net = try S.network(input: s) { builder in
                let la = try builder.append(
                    kind: .concatenation(Concatenation(groups: 2, groupID: 0)), inputs: [Network.inputIndex], source: S.source)
                let lb = try builder.append(
                    kind: .concatenation(Concatenation(groups: 4, groupID: 3)), inputs: [Network.inputIndex], source: S.source)
                try builder.append(kind: .sum(ElementwiseSum(activation: activation)), inputs: firstIsA ? [la, lb] : [lb, la], source: S.source)
            }
            // darknet shortcut_cpu: out = first input; out[c] += other[c] for c < min(C0, C1).
            var expected = firstIsA ? a : b
            let other = firstIsA ? b : a
            for i in 0..<(2 * plane) { expected[i] += other[i] }
            expected = expected.map { Self.activate($0, activation) }
            try check(
                net, input: input, expected: expected, shape: ActivationShape(channels: firstIsA ? 4 : 2, height: 3, width: 2),
                "shortcut \(firstIsA ? "4 + 2" : "2 + 4") channels, \(activation.name)")
        }
    }

    func testSumWithDifferentSpatialSizes() throws {
        // darknet shortcut_cpu with the added layer smaller (w1 = 2 < w2 = 4): sample = 2, out[c, 2j, 2i] += add[c, j, i];
        // and larger (add 4x4 into 2x2): stride = 2, out[c, j, i] += add[c, 2j, 2i].
        let s = ActivationShape(channels: 2, height: 4, width: 4)
        let input = values(s.count, seed: 82, scale: 2)
        let (_, pooled) = Self.pooling(input, s, Pooling(kind: .average, kernelHeight: 2, kernelWidth: 2, strideY: 2, strideX: 2))
        let small = try S.network(input: s) { b in
            let p = try b.append(
                kind: .pooling(Pooling(kind: .average, kernelHeight: 2, kernelWidth: 2, strideY: 2, strideX: 2)), inputs: [Network.inputIndex],
                source: S.source)
            try b.append(kind: .sum(ElementwiseSum()), inputs: [Network.inputIndex, p], source: S.source)
        }
        var expected = input.map(Double.init)
        for c in 0..<2 { for j in 0..<2 { for i in 0..<2 { expected[(c * 4 + 2 * j) * 4 + 2 * i] += pooled[(c * 2 + j) * 2 + i] } } }
        try check(small, input: input, expected: expected, shape: s, "shortcut adding a 2x2 map into 4x4")

        let large = try S.network(input: s) { b in
            let p = try b.append(
                kind: .pooling(Pooling(kind: .average, kernelHeight: 2, kernelWidth: 2, strideY: 2, strideX: 2)), inputs: [Network.inputIndex],
                source: S.source)
            try b.append(kind: .sum(ElementwiseSum()), inputs: [p, Network.inputIndex], source: S.source)
        }
        var expectedLarge = pooled
        for c in 0..<2 { for j in 0..<2 { for i in 0..<2 { expectedLarge[(c * 2 + j) * 2 + i] += Double(input[(c * 4 + 2 * j) * 4 + 2 * i]) } } }
        try check(
            large, input: input, expected: expectedLarge, shape: ActivationShape(channels: 2, height: 2, width: 2),
            "shortcut adding a 4x4 map into 2x2")
    }

    func testProduct() throws {
        let s = ActivationShape(channels: 3, height: 2, width: 3)
        let input = values(s.count, seed: 83, scale: 2)
        let same = try S.network(input: s) { b in
            let r = try b.append(kind: .activation(.logistic), inputs: [Network.inputIndex], source: S.source)
            try b.append(kind: .product, inputs: [Network.inputIndex, r], source: S.source)
        }
        try check(same, input: input, expected: input.map { Double($0) / (1 + exp(-Double($0))) }, shape: s, "multiply same shape")
        // C x 1 x 1 broadcast over H x W (Darknet [scale_channels]).
        let broadcast = try S.network(input: s) { b in
            let g = try b.append(kind: .globalAveragePool, inputs: [Network.inputIndex], source: S.source)
            try b.append(kind: .product, inputs: [Network.inputIndex, g], source: S.source)
        }
        var expected = [Double](repeating: 0, count: s.count)
        for c in 0..<3 {
            let mean = input[(c * 6)..<((c + 1) * 6)].reduce(0.0) { $0 + Double($1) } / 6
            for i in 0..<6 { expected[c * 6 + i] = Double(input[c * 6 + i]) * mean }
        }
        try check(broadcast, input: input, expected: expected, shape: s, "multiply by C x 1 x 1")
    }

    // MARK: data movement

    func testUpsample() throws {
        let s = ActivationShape(channels: 2, height: 2, width: 3)
        let input = values(s.count, seed: 90, scale: 2)
        let out = ActivationShape(channels: 2, height: 4, width: 9)
        var expected = [Double](repeating: 0, count: out.count)
        for c in 0..<2 { for y in 0..<4 { for x in 0..<9 { expected[(c * 4 + y) * 9 + x] = 0.5 * Double(input[(c * 2 + y / 2) * 3 + x / 3]) } } }
        try check(
            S.single(.upsample(Upsample(strideY: 2, strideX: 3, scale: 0.5)), input: s), input: input, expected: expected, shape: out,
            "upsample 2x3 scale 0.5")
    }

    func testReorg() throws {
        let s = ActivationShape(channels: 8, height: 4, width: 2)
        let input = values(s.count, seed: 91)
        let darknet = ReorgKernelTests.darknetReorgCPU(input.map(Double.init), w: 2, h: 4, c: 8, stride: 2, forward: false)
        try check(
            S.single(.reorg(Reorg(stride: 2, flavor: .darknetReorg)), input: s), input: input, expected: darknet,
            shape: ActivationShape(channels: 32, height: 2, width: 1), "darknet reorg")
        // tf.space_to_depth (NHWC): out[y, x, (dy*bs + dx)*C + c] = in[y*bs + dy, x*bs + dx, c].
        var tf = [Double](repeating: 0, count: s.count)
        for c in 0..<8 {
            for y in 0..<2 {
                for x in 0..<1 {
                    for dy in 0..<2 {
                        for dx in 0..<2 {
                            let outChannel = (dy * 2 + dx) * 8 + c
                            tf[(outChannel * 2 + y) * 1 + x] = Double(input[(c * 4 + y * 2 + dy) * 2 + x * 2 + dx])
                        }
                    }
                }
            }
        }
        try check(
            S.single(.reorg(Reorg(stride: 2, flavor: .spaceToDepth)), input: s), input: input, expected: tf,
            shape: ActivationShape(channels: 32, height: 2, width: 1), "space_to_depth")
    }

    func testReshape() throws {
        let s = ActivationShape(channels: 2, height: 2, width: 3)
        let input = values(s.count, seed: 92)
        let target = ActivationShape(channels: 3, height: 1, width: 4)
        try check(
            S.single(.reshape(Reshape(target: target, order: .channelsFirst)), input: s), input: input,
            expected: input.map(Double.init), shape: target, "reshape channels first")
        // channels last: read in (y, x, c) order, write in (y, x, c) order of the target.
        var sequence: [Double] = []
        for y in 0..<2 { for x in 0..<3 { for c in 0..<2 { sequence.append(Double(input[(c * 2 + y) * 3 + x])) } } }
        var expected = [Double](repeating: 0, count: target.count)
        var k = 0
        for y in 0..<1 { for x in 0..<4 { for c in 0..<3 { expected[(c * 1 + y) * 4 + x] = sequence[k]; k += 1 } } }
        try check(
            S.single(.reshape(Reshape(target: target, order: .channelsLast)), input: s), input: input,
            expected: expected, shape: target, "reshape channels last")
    }

    func testZeroPadAndCrop() throws {
        let s = ActivationShape(channels: 2, height: 3, width: 4)
        let input = values(s.count, seed: 93, scale: 2)
        let pad = Padding2D(top: 1, left: 2, bottom: 0, right: 1)
        let padded = ActivationShape(channels: 2, height: 4, width: 7)
        var expected = [Double](repeating: 0, count: padded.count)
        for c in 0..<2 { for y in 0..<3 { for x in 0..<4 { expected[(c * 4 + y + 1) * 7 + x + 2] = Double(input[(c * 3 + y) * 4 + x]) } } }
        try check(S.single(.zeroPad(pad), input: s), input: input, expected: expected, shape: padded, "zero pad")
        let cropped = ActivationShape(channels: 2, height: 2, width: 1)
        var expectedCrop = [Double](repeating: 0, count: cropped.count)
        for c in 0..<2 { for y in 0..<2 { expectedCrop[c * 2 + y] = Double(input[(c * 3 + y + 1) * 4 + 2]) } }
        try check(S.single(.crop(pad), input: s), input: input, expected: expectedCrop, shape: cropped, "crop")
    }
}
