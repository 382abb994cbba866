import FoldKitBlobFormat
import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit

/// Transposed convolution (`TransposedConvolution`): small cases by hand, Keras' 'valid', 'same' and
/// output_padding geometries against the scatter formula written out here (direct loops in float64, no
/// GEMM), in float64 and float32 and with both product threadings; the geometries shape inference refuses;
/// the blobs, the manifest entry and the batch norm that must stay a layer of its own.
final class TransposedConvolutionKernelTests: XCTestCase {
    typealias S = RuntimeTestSupport

    private func deconv(
        _ weights: [Float], bias: [Float]?, out o: Int, in i: Int, kernel: (Int, Int), stride: (Int, Int), offset: (Int, Int) = (0, 0),
        output: (Int, Int), activation: Activation = .linear
    ) -> TransposedConvolution {
        TransposedConvolution(
            weights: WeightTensor(shape: [o, i, kernel.0, kernel.1], values: weights), bias: bias.map(S.tensor), outputChannels: o,
            inputChannels: i, kernelHeight: kernel.0, kernelWidth: kernel.1, strideY: stride.0, strideX: stride.1, offsetY: offset.0,
            offsetX: offset.1, outputHeight: output.0, outputWidth: output.1, activation: activation)
    }

    /// z[o, y, x] = sum of in[i, iy, ix] * W[o, i, ky, kx] over iy*sy + ky - offsetY == y, ix*sx + kx - offsetX == x,
    /// then + bias and the activation (`KernelReferenceTests.activate`), by scattering every product.
    static func reference(_ input: [Float], _ shape: ActivationShape, _ t: TransposedConvolution) throws -> [Double] {
        let w = try t.weights.floats(), bias = try t.bias?.floats()
        let (oh, ow) = (t.outputHeight, t.outputWidth)
        var z = [Double](repeating: 0, count: t.outputChannels * oh * ow)
        for o in 0..<t.outputChannels {
            for i in 0..<t.inputChannels {
                for iy in 0..<shape.height {
                    for ix in 0..<shape.width {
                        for ky in 0..<t.kernelHeight {
                            for kx in 0..<t.kernelWidth {
                                let y = iy * t.strideY + ky - t.offsetY, x = ix * t.strideX + kx - t.offsetX
                                guard y >= 0 && y < oh && x >= 0 && x < ow else { continue }
                                z[(o * oh + y) * ow + x] +=
                                    Double(input[(i * shape.height + iy) * shape.width + ix])
                                    * Double(w[((o * t.inputChannels + i) * t.kernelHeight + ky) * t.kernelWidth + kx])
                            }
                        }
                    }
                }
            }
        }
        return z.indices.map { k in KernelReferenceTests.activate(z[k] + Double(bias?[k / (oh * ow)] ?? 0), t.activation) }
    }

    /// Runs `t` on `input` in float64 and float32 (each with both product threadings) against `reference`.
    private func check(
        _ t: TransposedConvolution, input shape: ActivationShape, seed: UInt64, _ what: String, file: StaticString = #filePath, line: UInt = #line
    )
        throws
    {
        let network = try S.single(.transposedConvolution(t), input: shape)
        XCTAssertEqual(
            network.layers[0].outputShape, ActivationShape(channels: t.outputChannels, height: t.outputHeight, width: t.outputWidth), what,
            file: file, line: line)
        let input = S.seeded(shape.count, seed: seed)
        let expected = try Self.reference(input, shape, t)
        S.assertClose(try S.runDouble(network, input: input, file: file, line: line), expected, tolerance: 1e-12, file: file, line: line)
        S.assertClose(try S.runFloat(network, input: input, file: file, line: line), expected, tolerance: 1e-5, file: file, line: line)
        // Parameters read and the column matrix allocated while the layer runs.
        let streamed = ExecutorOptions(streamParameters: true)
        S.assertClose(
            try S.runDouble(network, input: input, options: streamed, file: file, line: line), expected, tolerance: 1e-12, file: file, line: line)
    }

    /// in [[1, 2], [3, 4]], W [[1, 10], [100, 1000]]: stride 1 overlaps the stamps (3 x 3), stride 2 tiles
    /// them (4 x 4); bias 0.5.
    func testTwoByTwoByHand() throws {
        let shape = ActivationShape(channels: 1, height: 2, width: 2)
        let kernel: [Float] = [1, 10, 100, 1000]
        let overlapping = try S.single(
            .transposedConvolution(deconv(kernel, bias: [0.5], out: 1, in: 1, kernel: (2, 2), stride: (1, 1), output: (3, 3))), input: shape)
        XCTAssertEqual(overlapping.layers[0].kind.typeName, "deconv")
        let stamped: [Double] = [1, 12, 20, 103, 1234, 2040, 300, 3400, 4000].map { $0 + 0.5 }
        XCTAssertEqual(try S.runDouble(overlapping, input: [1, 2, 3, 4]), stamped)
        XCTAssertEqual(try S.runFloat(overlapping, input: [1, 2, 3, 4]).map(Double.init), stamped)
        let tiled = try S.single(
            .transposedConvolution(deconv(kernel, bias: [0.5], out: 1, in: 1, kernel: (2, 2), stride: (2, 2), output: (4, 4))), input: shape)
        let tiles: [Double] = [
            1, 10, 2, 20,
            100, 1000, 200, 2000,
            3, 30, 4, 40,
            300, 3000, 400, 4000,
        ]
        XCTAssertEqual(try S.runDouble(tiled, input: [1, 2, 3, 4]), tiles.map { $0 + 0.5 })
        XCTAssertEqual(try S.runFloat(tiled, input: [1, 2, 3, 4]).map(Double.init), tiles.map { $0 + 0.5 })
    }

    /// Two input channels into two output channels, 1 x 1 kernel, stride 2: each input pixel lands on every
    /// other output pixel, W mixing the channels; the pixels between hold the bias only, then relu.
    func testChannelMixingAndGapsByHand() throws {
        // W[o][i]: o0 = 1*in0 - 1*in1, o1 = 2*in0 + 0.5*in1; in0 = [1, 2], in1 = [3, -4] (1 x 2).
        let t = deconv([1, -1, 2, 0.5], bias: [0.25, -1], out: 2, in: 2, kernel: (1, 1), stride: (1, 2), output: (1, 4), activation: .relu)
        let network = try S.single(.transposedConvolution(t), input: ActivationShape(channels: 2, height: 1, width: 2))
        // o0: [1 - 3, gap, 2 + 4, gap] + 0.25 = [-1.75, 0.25, 6.25, 0.25] -> relu [0, 0.25, 6.25, 0.25]
        // o1: [2 + 1.5, gap, 4 - 2, gap] - 1 = [2.5, -1, 1, -1] -> relu [2.5, 0, 1, 0]
        XCTAssertEqual(try S.runDouble(network, input: [1, 2, 3, -4]), [0, 0.25, 6.25, 0.25, 2.5, 0, 1, 0])
        XCTAssertEqual(try S.runFloat(network, input: [1, 2, 3, -4]), [0, 0.25, 6.25, 0.25, 2.5, 0, 1, 0])
    }

    /// Keras 'valid': offset 0, output (H - 1)*s + k.
    func testValid() throws {
        let shape = ActivationShape(channels: 3, height: 4, width: 5)
        for (k, s) in [((3, 3), (2, 2)), ((2, 3), (1, 2)), ((3, 2), (3, 1)), ((1, 1), (2, 2))] {
            let (oh, ow) = ((shape.height - 1) * s.0 + k.0, (shape.width - 1) * s.1 + k.1)
            let t = deconv(
                S.seeded(2 * 3 * k.0 * k.1, seed: 31), bias: S.seeded(2, seed: 32), out: 2, in: 3, kernel: k, stride: s, output: (oh, ow),
                activation: .leaky(slope: 0.1))
            try check(t, input: shape, seed: 33, "valid, kernel \(k), stride \(s)")
        }
    }

    /// Keras 'same': output H*s, offset pad_total / 2 with pad_total = max(k - s, 0): k = 3, s = 2, H = 3 gives
    /// 6 rows from offset 0 (the full output has 7); k = 4, s = 2 offset 1; k = 5, s = 1 offset 2; k = 1,
    /// s = 2 offset 0 with the last row reached by no input.
    func testSame() throws {
        let shape = ActivationShape(channels: 2, height: 3, width: 3)
        for (k, s) in [(3, 2), (4, 2), (5, 1), (1, 2), (3, 3)] {
            let offset = max(k - s, 0) / 2
            let t = deconv(
                S.seeded(3 * 2 * k * k, seed: 41), bias: S.seeded(3, seed: 42), out: 3, in: 2, kernel: (k, k), stride: (s, s),
                offset: (offset, offset), output: (3 * s, 3 * s))
            try check(t, input: shape, seed: 43, "same, kernel \(k), stride \(s)")
        }
        // k = 3, s = 2, H = 3 by hand on one channel with W = 1 everywhere and no bias: rows 0..5 of the full
        // output 0..6 (offset 0); column/row counts of overlapping stamps are 1, 1, 2, 1, 2, 1 (and 1 for the
        // dropped row 6), so out[y, x] = count(y) * count(x) for an input of ones.
        let ones = deconv([Float](repeating: 1, count: 9), bias: nil, out: 1, in: 1, kernel: (3, 3), stride: (2, 2), output: (6, 6))
        let counts: [Double] = [1, 1, 2, 1, 2, 1]
        let network = try S.single(.transposedConvolution(ones), input: ActivationShape(channels: 1, height: 3, width: 3))
        XCTAssertEqual(try S.runDouble(network, input: [Float](repeating: 1, count: 9)), counts.flatMap { cy in counts.map { cy * $0 } })
    }

    /// An output larger than the full output (Keras output_padding): the rows and columns past it hold the
    /// bias only (here after a linear activation, then with relu of a negative bias: 0).
    func testOutputLargerThanTheFullOutput() throws {
        let shape = ActivationShape(channels: 1, height: 2, width: 2)
        // Full output 4 x 4; 6 x 5 kept from offset (0, 0): rows 4, 5 and column 4 are bias only.
        let t = deconv([1, 10, 100, 1000], bias: [0.5], out: 1, in: 1, kernel: (2, 2), stride: (2, 2), output: (6, 5))
        let network = try S.single(.transposedConvolution(t), input: shape)
        let full: [[Double]] = [[1, 10, 2, 20], [100, 1000, 200, 2000], [3, 30, 4, 40], [300, 3000, 400, 4000]]
        var expected: [Double] = []
        for y in 0..<6 {
            for x in 0..<5 { expected.append((y < 4 && x < 4 ? full[y][x] : 0) + 0.5) }
        }
        XCTAssertEqual(try S.runDouble(network, input: [1, 2, 3, 4]), expected)
        XCTAssertEqual(try S.runFloat(network, input: [1, 2, 3, 4]).map(Double.init), expected)
        // An offset past part of the output too, on several channels, against the formula.
        let wide = deconv(
            S.seeded(4 * 3 * 9, seed: 51), bias: [-0.5, 0.25, 1, -2], out: 4, in: 3, kernel: (3, 3), stride: (2, 2), offset: (2, 1),
            output: (9, 10), activation: .relu)
        try check(wide, input: ActivationShape(channels: 3, height: 3, width: 4), seed: 52, "offset and output past the full output")
    }

    /// Products large enough for `GEMMPartition` to split across cores, 16 -> 24 channels.
    func testLargerLayerMatchesTheFormula() throws {
        let t = deconv(
            S.seeded(24 * 16 * 16, seed: 61), bias: S.seeded(24, seed: 62), out: 24, in: 16, kernel: (4, 4), stride: (2, 2), offset: (1, 1),
            output: (32, 32), activation: .leaky(slope: 0.1))
        try check(t, input: ActivationShape(channels: 16, height: 16, width: 16), seed: 63, "16 -> 24, 4x4 stride 2, same")
    }

    private func refusal(_ t: TransposedConvolution, channels: Int = 1) -> String? {
        do {
            _ = try LayerKind.transposedConvolution(t).outputShape(for: [ActivationShape(channels: channels, height: 2, width: 2)])
            return nil
        } catch {
            return (error as? FoldKitError)?.message ?? "\(error)"
        }
    }

    func testShapeInferenceRefusesBadGeometry() {
        let w: [Float] = [1, 2, 3, 4]
        func make(
            bias: [Float]? = nil, stride: (Int, Int) = (2, 2), offset: (Int, Int) = (0, 0), output: (Int, Int) = (4, 4)
        ) -> TransposedConvolution {
            deconv(w, bias: bias, out: 1, in: 1, kernel: (2, 2), stride: stride, offset: offset, output: output)
        }
        XCTAssertNil(refusal(make()))
        XCTAssertEqual(refusal(make(), channels: 2), "transposed convolution input channels")
        var wrongWeights = make()
        wrongWeights.weights = WeightTensor(shape: [1, 1, 1, 3], values: [1, 2, 3])
        XCTAssertEqual(refusal(wrongWeights), "transposed convolution weight count")
        XCTAssertEqual(refusal(make(bias: [1, 2])), "transposed convolution bias count")
        XCTAssertEqual(refusal(make(stride: (0, 2))), "kernel size and stride must be at least 1")
        XCTAssertEqual(refusal(make(stride: (2, -1))), "kernel size and stride must be at least 1")
        XCTAssertEqual(refusal(make(offset: (-1, 0))), "transposed convolution offsets must be at least 0")
        XCTAssertEqual(refusal(make(offset: (0, -2))), "transposed convolution offsets must be at least 0")
        XCTAssertEqual(refusal(make(output: (0, 4))), "transposed convolution output size must be at least 1x1")
        XCTAssertEqual(refusal(make(output: (4, -1))), "transposed convolution output size must be at least 1x1")
        XCTAssertEqual(
            refusal(deconv([], bias: nil, out: 1, in: 1, kernel: (0, 0), stride: (1, 1), output: (2, 2))), "kernel size and stride must be at least 1"
        )
    }

    /// Weights leave as OIHW -> OHWI ([O, kh, kw, I]) like a convolution's, the bias as [O]; the manifest
    /// entry has the kernel, stride and offset; verify --blobs rebuilds the layer from the files.
    func testBlobsAndManifest() throws {
        let directory = try TestData.temporaryDirectory()
        let source = directory.appendingPathComponent("model.cfg")
        try Data("[net]\n".utf8).write(to: source)
        let shape = ActivationShape(channels: 3, height: 2, width: 3)
        let weights = (0..<(2 * 3 * 2 * 3)).map { Float($0) }
        let t = deconv(weights, bias: nil, out: 2, in: 3, kernel: (2, 3), stride: (2, 1), offset: (1, 0), output: (4, 5), activation: .relu)
        var builder = NetworkBuilder(inputShape: shape)
        try builder.append(kind: .transposedConvolution(t), inputs: [Network.inputIndex], source: LayerSource(file: source.path, section: "[test]"))
        let network = Network(
            format: .darknet, sourceFiles: [source.path], inputShape: shape, inputOrder: .channelsFirst, layers: builder.layers, outputs: [],
            epsilonConvention: .darknet)
        let folder = directory.appendingPathComponent("blobs")
        let manifest = try BlobWriter.write(network: network, to: folder)
        XCTAssertEqual(manifest.tensors.map(\.file), ["deconv0_W.bin", "deconv0_b.bin"])
        XCTAssertEqual(manifest.tensors[0].shape, [2, 2, 3, 3])
        XCTAssertEqual(manifest.tensors[0].layout, .ohwi)
        XCTAssertEqual(manifest.tensors[1].shape, [2])
        let layer = manifest.layers[0]
        XCTAssertEqual(layer.type, "deconv")
        XCTAssertEqual(layer.kernel, [2, 3])
        XCTAssertEqual(layer.stride, [2, 1])
        XCTAssertEqual(layer.outputOffset, [1, 0])
        XCTAssertEqual(layer.outputShape, [2, 4, 5])
        XCTAssertEqual(layer.activation, "relu")
        // OHWI element (o, y, x, i) = OIHW element (o, i, y, x) = ((o*3 + i)*2 + y)*3 + x.
        let blob = FloatFileReader.decodeLittleEndianFloats(try Data(contentsOf: folder.appendingPathComponent("deconv0_W.bin")))
        XCTAssertEqual(blob[((1 * 2 + 1) * 3 + 2) * 3 + 0], Float(((1 * 3 + 0) * 2 + 1) * 3 + 2))
        XCTAssertEqual(blob[((0 * 2 + 0) * 3 + 1) * 3 + 2], Float(((0 * 3 + 2) * 2 + 0) * 3 + 1))
        XCTAssertEqual(FloatFileReader.decodeLittleEndianFloats(try Data(contentsOf: folder.appendingPathComponent("deconv0_b.bin"))), [0, 0])
        for layout in WeightLayout.allCases {
            let other = directory.appendingPathComponent("blobs-\(layout.rawValue)")
            try BlobWriter.write(network: network, to: other, options: .init(layout: layout))
            let read = try BlobReader.read(folder: other, model: network)
            XCTAssertEqual(read.problems, [], layout.rawValue)
            let input = S.seeded(shape.count, seed: 71)
            XCTAssertEqual(try S.runDouble(try XCTUnwrap(read.network), input: input), try S.runDouble(network, input: input), layout.rawValue)
        }
    }

    /// A batch norm after a transposed convolution is not attached to it: it stays its own layer and folds
    /// into a channel affine; the weight-overflow scan covers the transposed convolution's weights.
    func testBatchNormStaysALayerAndWeightsAreScanned() throws {
        let bn = BatchNorm(
            gamma: S.tensor([2]), beta: S.tensor([1]), mean: S.tensor([0.5]), variance: S.tensor([4]),
            convention: EpsilonConvention(epsilon: 0, placement: .insideSqrt))
        let t = deconv([1, 70000, 2, 3], bias: nil, out: 1, in: 1, kernel: (2, 2), stride: (2, 2), output: (4, 4))
        let network = try S.network(input: ActivationShape(channels: 1, height: 2, width: 2)) { builder in
            try builder.append(kind: .transposedConvolution(t), inputs: [Network.inputIndex], source: S.source)
            try builder.append(kind: .batchNorm(bn), inputs: [0], source: S.source)
        }
        XCTAssertEqual(BatchNormAttachment.attachments(in: network), [])
        let attached = BatchNormAttachment.apply(to: network)
        guard case .batchNorm = attached.layers[1].kind else { return XCTFail("the batch norm should stay a layer") }
        let folded = try FoldBatchNorm.apply(to: attached)
        guard case .channelAffine = folded.layers[1].kind else { return XCTFail("the batch norm should fold into a channel affine") }
        // (z - 0.5) / 2 * 2 + 1 = z + 0.5 on the tiles of [1, 2, 3, 4] by [[1, 70000], [2, 3]].
        let z: [Double] = [1, 70000, 2, 140_000, 2, 3, 4, 6, 3, 210_000, 4, 280_000, 6, 9, 8, 12]
        XCTAssertEqual(try S.runDouble(folded, input: [1, 2, 3, 4]), z.map { $0 + 0.5 })
        let hazards = try Float16Hazard.scan(folded: folded)
        XCTAssertEqual(hazards.filter { $0.kind == .weightOverflow }.map(\.layer), [0])
    }
}
