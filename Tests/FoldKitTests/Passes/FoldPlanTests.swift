import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit
@testable import FoldKitIO

final class FoldPlanTests: XCTestCase {
    private func batchNorm(channels: Int, seed: UInt64) -> BatchNorm {
        var rng = SplitMix64(seed: seed)
        func tensor(_ low: Double, _ high: Double) -> WeightTensor {
            WeightTensor(shape: [channels], values: (0..<channels).map { _ in rng.nextFloat(in: low, high) })
        }
        return BatchNorm(gamma: tensor(0.5, 1.5), beta: tensor(-0.1, 0.1), mean: tensor(-0.1, 0.1), variance: tensor(0.5, 1.5), convention: .darknet)
    }

    /// A convolution layer of `outputs` outputs (3 inputs, 3x3 kernel) whose batch norm has `bnChannels` channels.
    private func convolutionLayer(outputs: Int, bnChannels: Int) throws -> Network {
        var builder = NetworkBuilder(inputShape: ActivationShape(channels: 3, height: 4, width: 4))
        var rng = SplitMix64(seed: 11)
        let conv = Convolution(
            inputChannels: 3, outputChannels: outputs, kernelHeight: 3, kernelWidth: 3, padding: .uniform(1),
            weights: WeightTensor(shape: [outputs, 3, 3, 3], values: (0..<(outputs * 27)).map { _ in rng.nextFloat(in: -1, 1) }),
            bias: nil, batchNorm: batchNorm(channels: bnChannels, seed: 5))
        try builder.append(
            kind: .convolution(conv), inputs: [Network.inputIndex], source: LayerSource(file: "plan.cfg", section: "[convolutional]", line: 3))
        return Network(
            format: .darknet, sourceFiles: [], inputShape: builder.inputShape, inputOrder: .channelsFirst,
            layers: builder.layers, outputs: [], epsilonConvention: .darknet)
    }

    func testSizeMismatchIsOneErrorNamingTheLayerOnEveryPath() throws {
        let network = try convolutionLayer(outputs: 4, bnChannels: 3)
        var errors: [FoldKitError] = []
        XCTAssertThrowsError(try FoldBatchNorm.apply(to: network)) { if let e = $0 as? FoldKitError { errors.append(e) } }
        let out = try TestData.temporaryDirectory().appendingPathComponent("blobs")
        XCTAssertThrowsError(try BlobWriter.write(network: network, to: out)) { if let e = $0 as? FoldKitError { errors.append(e) } }
        XCTAssertEqual(errors.count, 2)
        for error in errors {
            XCTAssertEqual(error.message, "batch norm size does not match the layer's outputs")
            XCTAssertEqual(error.layer, network.layers[0].label)
            XCTAssertEqual(error.file, "plan.cfg")
            XCTAssertEqual(error.expected, "4")
            XCTAssertEqual(error.found, "3 (gamma)")
        }
    }

    func testBiasOfTheWrongSizeIsRefused() {
        let bias = WeightTensor(shape: [2], values: [1, 2])
        XCTAssertThrowsError(try FoldPlan(outputs: 3, bias: bias, batchNorm: batchNorm(channels: 3, seed: 1), reader: FloatSpanReader()))
        XCTAssertThrowsError(try FoldPlan(outputs: 3, bias: bias, batchNorm: nil, reader: FloatSpanReader()))
    }

    func testChunksOfRowsGiveTheWholeTensorsBytes() throws {
        let (outputs, rowLength) = (7, 12)
        var rng = SplitMix64(seed: 2)
        let weights = (0..<(outputs * rowLength)).map { _ in rng.nextFloat(in: -2, 2) }
        let plan = try FoldPlan(outputs: outputs, bias: nil, batchNorm: batchNorm(channels: outputs, seed: 9), reader: FloatSpanReader())
        let whole = try plan.folded(WeightTensor(shape: [outputs, rowLength], values: weights)).floats()
        // Reference written out here: W'[o, k] = Float(Double(W[o, k]) * s[o]).
        let scale = try XCTUnwrap(plan.scale)
        XCTAssertEqual(whole.map(\.bitPattern), weights.indices.map { Float(Double(weights[$0]) * scale[$0 / rowLength]).bitPattern })
        for rowsPerChunk in [1, 2, 3, outputs] {
            var chunked = weights
            try chunked.withUnsafeMutableBufferPointer { all in
                var first = 0
                while first < outputs {
                    let end = min(outputs, first + rowsPerChunk)
                    try RowScale.apply(
                        scale, to: UnsafeMutableBufferPointer(rebasing: all[(first * rowLength)..<(end * rowLength)]),
                        firstRow: first, rowLength: rowLength)
                    first = end
                }
            }
            XCTAssertEqual(chunked.map(\.bitPattern), whole.map(\.bitPattern), "\(rowsPerChunk) rows per chunk")
        }
        // The same weights in a file: the fold reads nothing and returns a folded tensor, whose rows read in
        // chunks (as convert streams them) and whole (as verify runs them) are the same bytes.
        let file = try TestData.temporaryDirectory().appendingPathComponent("w.bin")
        try Data(weights.flatMap { value in withUnsafeBytes(of: value.bitPattern.littleEndian, Array.init) }).write(to: file)
        let spanned = try plan.folded(
            WeightTensor(shape: [outputs, rowLength], span: FileSpan(path: file.path, byteOffset: 0, count: weights.count)))
        guard case .scaledFile = spanned.storage else { return XCTFail("a file-backed tensor is folded lazily") }
        XCTAssertEqual(try spanned.floats().map(\.bitPattern), whole.map(\.bitPattern))
        let reader = FloatSpanReader()
        for rowsPerChunk in [1, 3, outputs] {
            var read = [Float](repeating: .nan, count: weights.count)
            try read.withUnsafeMutableBufferPointer { all in
                var first = 0
                while first < outputs {
                    let end = min(outputs, first + rowsPerChunk)
                    try reader.readRows(
                        of: spanned, firstRow: first, rowLength: rowLength,
                        into: UnsafeMutableBufferPointer(rebasing: all[(first * rowLength)..<(end * rowLength)]))
                    first = end
                }
            }
            XCTAssertEqual(read.map(\.bitPattern), whole.map(\.bitPattern), "\(rowsPerChunk) rows per chunk from the file")
        }
    }

    func testRowsBeyondTheOutputsAreRefused() throws {
        let plan = try FoldPlan(outputs: 2, bias: nil, batchNorm: batchNorm(channels: 2, seed: 4), reader: FloatSpanReader())
        var values: [Float] = [1, 2, 3, 4]
        let scale = try XCTUnwrap(plan.scale)
        XCTAssertThrowsError(try values.withUnsafeMutableBufferPointer { try RowScale.apply(scale, to: $0, firstRow: 1, rowLength: 2) })
    }

    func testBiasFormula() throws {
        let bn = batchNorm(channels: 3, seed: 7)
        let plan = try FoldPlan(outputs: 3, bias: WeightTensor(shape: [3], values: [0.5, -1, 2]), batchNorm: bn, reader: FloatSpanReader())
        let (g, be, m, v) = (try XCTUnwrap(bn.gamma).floats(), try XCTUnwrap(bn.beta).floats(), try bn.mean.floats(), try bn.variance.floats())
        let b: [Float] = [0.5, -1, 2]
        let expected = (0..<3).map { o -> Float in
            let s = Double(g[o]) / (Double(v[o]) + 1e-5).squareRoot()
            return Float((Double(be[o]) - Double(m[o]) * s) + Double(b[o]) * s)
        }
        XCTAssertEqual(plan.bias?.map(\.bitPattern), expected.map(\.bitPattern))
        let withoutBatchNorm = try FoldPlan(outputs: 3, bias: WeightTensor(shape: [3], values: b), batchNorm: nil, reader: FloatSpanReader())
        XCTAssertNil(withoutBatchNorm.scale)
        XCTAssertEqual(withoutBatchNorm.bias, b)
    }
}
