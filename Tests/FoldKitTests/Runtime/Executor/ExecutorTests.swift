import FoldKitCore
import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit
@testable import FoldKitRuntime

/// The executor as a whole: float32 against float64, float16 storage, output retention, input checks.
final class ExecutorTests: XCTestCase {
    typealias S = RuntimeTestSupport

    /// A small network touching most kernels: conv+BN (unfolded), maxpool, depthwise, 1x1, route, upsample,
    /// shortcut, global pooling, connected, softmax.
    static func mixedNetwork() throws -> Network {
        func conv(_ i: Int, _ o: Int, k: Int, groups: Int = 1, stride: Int = 1, bn: Bool, activation: Activation, seed: UInt64) -> LayerKind {
            let batchNorm =
                bn
                ? BatchNorm(
                    gamma: S.tensor(S.seeded(o, seed: seed + 1).map { 1 + $0 / 2 }), beta: S.tensor(S.seeded(o, seed: seed + 2)),
                    mean: S.tensor(S.seeded(o, seed: seed + 3)), variance: S.tensor(S.seeded(o, seed: seed + 4).map { $0 * $0 + 0.01 }),
                    convention: .darknet) : nil
            return .convolution(
                Convolution(
                    inputChannels: i, outputChannels: o, kernelHeight: k, kernelWidth: k, strideY: stride, strideX: stride,
                    padding: .uniform(k / 2), groups: groups,
                    weights: WeightTensor(shape: [o, i / groups, k, k], values: S.seeded(o * i / groups * k * k, seed: seed).map { $0 / 2 }),
                    bias: bn ? nil : S.tensor(S.seeded(o, seed: seed + 5)), batchNorm: batchNorm, activation: activation))
        }
        return try S.network(input: ActivationShape(channels: 3, height: 12, width: 12)) { b in
            let c0 = try b.append(
                kind: conv(3, 8, k: 3, bn: true, activation: .leaky(slope: 0.1), seed: 10), inputs: [Network.inputIndex], source: S.source)
            let p1 = try b.append(
                kind: .pooling(Pooling(kind: .max, kernelHeight: 2, kernelWidth: 2, strideY: 2, strideX: 2)), inputs: [c0], source: S.source)
            let d2 = try b.append(kind: conv(8, 8, k: 3, groups: 8, bn: true, activation: .mish, seed: 20), inputs: [p1], source: S.source)
            let c3 = try b.append(kind: conv(8, 8, k: 1, bn: false, activation: .swish, seed: 30), inputs: [d2], source: S.source)
            let r4 = try b.append(kind: .concatenation(Concatenation(groups: 2, groupID: 1)), inputs: [c3, p1], source: S.source)
            let s5 = try b.append(kind: .sum(ElementwiseSum(activation: .linear)), inputs: [r4, d2], source: S.source)
            let c6 = try b.append(kind: conv(8, 4, k: 3, stride: 2, bn: true, activation: .logistic, seed: 40), inputs: [s5], source: S.source)
            let u7 = try b.append(kind: .upsample(Upsample(strideY: 2, strideX: 2)), inputs: [c6], source: S.source)
            let r8 = try b.append(kind: .concatenation(Concatenation()), inputs: [u7, s5], source: S.source)
            let g9 = try b.append(kind: .globalAveragePool, inputs: [r8], source: S.source)
            let f10 = try b.append(
                kind: .fullyConnected(
                    FullyConnected(
                        inputCount: 12, outputCount: 5,
                        weights: WeightTensor(shape: [5, 12], values: S.seeded(60, seed: 50)), bias: S.tensor(S.seeded(5, seed: 51)))),
                inputs: [g9], source: S.source)
            try b.append(kind: .softmax(.flattened(groups: 1)), inputs: [f10], source: S.source)
        }
    }

    static let input = S.seeded(3 * 12 * 12, seed: 99)

    func testFloatAgreesWithDoubleWithinFloatRounding() throws {
        let network = try Self.mixedNetwork()
        let reference = try Executor<Double>(network: network).run(input: Self.input.map(Double.init))
        let float = try Executor<Float>(network: network).run(input: Self.input)
        XCTAssertEqual(reference.count, network.layers.count)
        XCTAssertEqual(float.count, reference.count, "one float32 output per layer")
        for (index, (r, f)) in zip(reference, float).enumerated() {
            XCTAssertEqual(r.count, network.layers[index].outputShape.count)
            let scale = r.map(abs).max() ?? 0
            // float32 has a 2^-24 ~ 6e-8 unit roundoff; a few dozen operations deep stays well below 1e-5
            assertClose(f, r, atol: 2e-6 * max(scale, 1), "layer \(index) float32 vs float64")
        }
    }

    func testFloat16StorageRoundsEveryOutputAndChangesResultsAtHalfPrecision() throws {
        let network = try Self.mixedNetwork()
        let float = try Executor<Float>(network: network).run(input: Self.input)
        let half = try Executor<Float>(network: network, options: ExecutorOptions(float16Storage: true)).run(input: Self.input)
        var largest = 0.0
        XCTAssertEqual(float.count, network.layers.count)
        XCTAssertEqual(half.count, float.count, "one float16-storage output per layer")
        for (index, (f, h)) in zip(float, half).enumerated() {
            for v in h { XCTAssertEqual(Float(Float16(v)), v, "layer \(index) output is not a binary16 value") }
            // binary16 keeps 11 significant bits (relative step 2^-11 ~ 4.9e-4); a few layers of it stay within 1%
            let closeness = assertClose(h, f, scaledTolerance: 1e-2, "layer \(index) float16 storage vs float32")
            largest = max(largest, closeness.worstDeviation / max(closeness.referenceScale, 1e-30))
        }
        XCTAssertGreaterThan(largest, 1e-4, "half-precision storage should visibly change the results")
    }

    /// A route to one whole layer (Darknet `layers=-2`) hands on that layer's array itself, no copy: the
    /// same values, and the same storage; a route to a channel group of one layer still copies its group.
    func testRouteToOneWholeLayerSharesItsOutput() throws {
        let network = try S.network(input: ActivationShape(channels: 4, height: 3, width: 3)) { b in
            let p0 = try b.append(
                kind: .pooling(Pooling(kind: .max, kernelHeight: 2, kernelWidth: 2, strideY: 1, strideX: 1)),
                inputs: [Network.inputIndex], source: S.source)
            try b.append(kind: .concatenation(Concatenation()), inputs: [p0], source: S.source)
            try b.append(kind: .concatenation(Concatenation(groups: 2, groupID: 1)), inputs: [p0], source: S.source)
        }
        let input = S.seeded(36, seed: 4)
        for float16Storage in [false, true] {
            let outputs = try Executor<Float>(network: network, options: ExecutorOptions(float16Storage: float16Storage)).run(input: input)
            XCTAssertEqual(outputs[1], outputs[0])
            XCTAssertEqual(outputs[2], Array(outputs[0][(outputs[0].count / 2)...]), "channels 2 and 3")
            outputs[0].withUnsafeBufferPointer { pooled in
                outputs[1].withUnsafeBufferPointer { routed in XCTAssertEqual(routed.baseAddress, pooled.baseAddress, "the whole route copied") }
            }
        }
        guard case .passThrough = try Executor<Float>.prepare(network.layers[1], in: network, options: ExecutorOptions()) else {
            return XCTFail("a route to one whole layer should pass its input through")
        }
    }

    func testOutputsOnlyKeepsTheOutputLayers() throws {
        var network = try Self.mixedNetwork()
        network.outputs = [5, 11]
        let all = try Executor<Double>(network: network).run(input: Self.input.map(Double.init))
        let some = try Executor<Double>(network: network).run(input: Self.input.map(Double.init), retention: .outputsOnly)
        XCTAssertEqual(some.count, network.layers.count)
        for index in some.indices {
            if [5, 11].contains(index) { XCTAssertEqual(some[index], all[index]) } else { XCTAssertTrue(some[index].isEmpty, "layer \(index)") }
        }
    }

    func testWrongInputSizeIsAUsageError() throws {
        let executor = try Executor<Float>(network: try Self.mixedNetwork())
        XCTAssertThrowsError(try executor.run(input: [1, 2, 3])) { error in
            XCTAssertEqual((error as? FoldKitError)?.kind, .usage)
            XCTAssertEqual((error as? FoldKitError)?.found, "3")
        }
    }

    func testInconsistentHandBuiltNetworksAreRefused() throws {
        var network = try S.single(.activation(.relu), input: .vector(4))
        network.layers[0].outputShape = .vector(5)
        XCTAssertThrowsError(try Executor<Float>(network: network)) { error in
            XCTAssertEqual((error as? FoldKitError)?.expected, "4x1x1")
            XCTAssertEqual((error as? FoldKitError)?.found, "5x1x1")
        }
        network.layers[0].outputShape = .vector(4)
        network.layers[0].inputs = [3]
        XCTAssertThrowsError(try Executor<Float>(network: network))
        let softmax = try S.single(.softmax(.flattened(groups: 3)), input: .vector(4))
        XCTAssertThrowsError(try Executor<Float>(network: softmax)) { error in
            XCTAssertEqual((error as? FoldKitError)?.found, "groups=3")
        }
    }

    func testFileBackedWeightsAreReadAtInit() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("foldkit-executor-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("w.bin")
        let values: [Float] = [0, 2, -3]
        var data = Data()
        for v in values { withUnsafeBytes(of: v.bitPattern.littleEndian) { data.append(contentsOf: $0) } }
        try data.write(to: file)
        let fc = FullyConnected(
            inputCount: 1, outputCount: 2, weights: WeightTensor(shape: [2, 1], span: FileSpan(path: file.path, byteOffset: 4, count: 2)),
            bias: nil)
        let executor = try Executor<Double>(network: try S.single(.fullyConnected(fc), input: .vector(1)))
        try FileManager.default.removeItem(at: file)
        XCTAssertEqual(try executor.run(input: [2]).last, [4, -6])
    }

    /// The first layer of most YOLOs (3 x 416 x 416 -> 32 channels, 3x3, stride 1) is prepared on the
    /// im2col + GEMM path in both precisions (products through cblas: `cblas_sgemm` / `cblas_dgemm`), not a
    /// per-pixel loop: too few input channels for Winograd, not 1x1, not depthwise. This replaces a
    /// release-only timing (under 1 s) that debug `swift test`, as CI runs it, never ran; the layer's time
    /// is measured by `foldkit bench --profile` (layer 0 of yolov3): Docs/Performance.md, "Timings measured
    /// outside the tests".
    func testFirstYOLOLayerTakesTheIm2ColGEMMPath() throws {
        let conv = Convolution(
            inputChannels: 3, outputChannels: 32, kernelHeight: 3, kernelWidth: 3, padding: .uniform(1),
            weights: WeightTensor(shape: [32, 3, 3, 3], values: S.seeded(864, seed: 1)), bias: S.tensor(S.seeded(32, seed: 2)),
            activation: .leaky(slope: 0.1))
        let network = try S.single(.convolution(conv), input: ActivationShape(channels: 3, height: 416, width: 416))
        func preparedPath<Scalar: ExecutorScalar>(_: Scalar.Type) throws -> ConvolutionKernel<Scalar>.Path? {
            guard case .kernel(let kernel) = try Executor<Scalar>.prepare(network.layers[0], in: network, options: ExecutorOptions()) else {
                return nil
            }
            return (kernel as? ConvolutionKernel<Scalar>)?.path
        }
        XCTAssertEqual(try preparedPath(Float.self), .im2col)
        XCTAssertEqual(try preparedPath(Double.self), .im2col)
    }

    func testStreamedParametersGiveTheSameOutputsOnEveryRun() throws {
        let network = try Self.mixedNetwork()
        let input = Self.input.map(Double.init)
        let resident = try Executor<Double>(network: network).run(input: input)
        let streamed = try Executor<Double>(network: network, options: ExecutorOptions(streamParameters: true))
        XCTAssertEqual(try streamed.run(input: input), resident)
        XCTAssertEqual(try streamed.run(input: input), resident, "a second run reads the parameters again")
        let half = try Executor<Float>(network: network, options: ExecutorOptions(float16Storage: true)).run(input: Self.input)
        XCTAssertEqual(
            try Executor<Float>(network: network, options: ExecutorOptions(float16Storage: true, streamParameters: true)).run(input: Self.input), half
        )
    }

    func testObserverSeesEveryLayerWhileOnlyOutputsAreKept() throws {
        var network = try Self.mixedNetwork()
        network.outputs = [11]
        let all = try Executor<Double>(network: network).run(input: Self.input.map(Double.init))
        var seen: [Int: [Double]] = [:]
        let kept = try Executor<Double>(network: network, options: ExecutorOptions(streamParameters: true))
            .run(input: Self.input.map(Double.init), retention: .outputsOnly) { index, output in
                XCTAssertNil(seen[index], "layer \(index) observed twice")
                seen[index] = output
            }
        XCTAssertEqual(seen.count, network.layers.count)
        for index in all.indices { XCTAssertEqual(seen[index], all[index], "layer \(index)") }
        XCTAssertEqual(kept[11], all[11])
        XCTAssertTrue(kept[0].isEmpty)
    }

    func testStreamedWrongWeightCountIsReportedByRun() throws {
        let conv = Convolution(
            inputChannels: 1, outputChannels: 2, kernelHeight: 1, kernelWidth: 1,
            weights: WeightTensor(shape: [2, 1, 1, 1], values: [1, 2]), bias: S.tensor([1, 2, 3]))
        let network = try S.single(.convolution(conv), input: .vector(1))
        let executor = try Executor<Double>(network: network, options: ExecutorOptions(streamParameters: true))
        XCTAssertThrowsError(try executor.run(input: [1])) { error in
            let e = error as? FoldKitError
            XCTAssertEqual(e?.layer, "layer 0 [test]")
            XCTAssertEqual(e?.expected, "2")
            XCTAssertEqual(e?.found, "3")
        }
    }
}
