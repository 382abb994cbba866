import XCTest

@testable import FoldKit

/// Bilinear upsampling (`Upsample` with `.bilinear`, TensorFlow's half-pixel resize): a 2 x 2 map to 4 x 4
/// by hand, and other factors against PyTorch's formulation of the same resize (align_corners=False:
/// src clamped at 0, then the weighted sum (1 - l) * a + l * b), in float64 and float32.
final class BilinearUpsampleKernelTests: XCTestCase {
    typealias S = RuntimeTestSupport

    /// [[1, 2], [3, 4]] to 4 x 4: output rows read src = (y + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, 1.25, so rows
    /// 0 and 3 are the input rows (clamped), rows 1 and 2 are 1/4 and 3/4 of the way; columns alike.
    func testTwoByTwoToFourByFourByHand() throws {
        let expected: [Double] = [
            1, 1.25, 1.75, 2,
            1.5, 1.75, 2.25, 2.5,
            2.5, 2.75, 3.25, 3.5,
            3, 3.25, 3.75, 4,
        ]
        let network = try S.single(
            .upsample(Upsample(strideY: 2, strideX: 2, interpolation: .bilinear)), input: ActivationShape(channels: 1, height: 2, width: 2))
        XCTAssertEqual(network.layers[0].outputShape, ActivationShape(channels: 1, height: 4, width: 4))
        XCTAssertEqual(network.layers[0].kind.typeName, "upsample(bilinear)")
        XCTAssertEqual(try S.runDouble(network, input: [1, 2, 3, 4]), expected)
        XCTAssertEqual(try S.runFloat(network, input: [1, 2, 3, 4]).map(Double.init), expected)
        // Two channels and a scale of 0.5: each channel on its own, every value halved.
        let scaled = try S.single(
            .upsample(Upsample(strideY: 2, strideX: 2, scale: 0.5, interpolation: .bilinear)),
            input: ActivationShape(channels: 2, height: 2, width: 2))
        let second = expected.map { 10 * $0 }
        XCTAssertEqual(try S.runDouble(scaled, input: [1, 2, 3, 4, 10, 20, 30, 40]), (expected + second).map { 0.5 * $0 })
        XCTAssertEqual(try S.runFloat(scaled, input: [1, 2, 3, 4, 10, 20, 30, 40]).map(Double.init), (expected + second).map { 0.5 * $0 })
    }

    /// A 1 x 3 row to 1 x 9 (factor 3): src = (x + 0.5) / 3 - 0.5 = -1/3, 0, 1/3, 2/3, 1, 4/3, 5/3, 2, 7/3.
    func testFactorThreeByHand() throws {
        let network = try S.single(
            .upsample(Upsample(strideY: 1, strideX: 3, interpolation: .bilinear)), input: ActivationShape(channels: 1, height: 1, width: 3))
        let expected: [Double] = [0, 0, 1.0 / 3 * 3, 2.0 / 3 * 3, 3, 3 + 1.0 / 3 * 6, 3 + 2.0 / 3 * 6, 9, 9]
        S.assertClose(try S.runDouble(network, input: [0, 3, 9]), expected, tolerance: 1e-15)
        S.assertClose(try S.runFloat(network, input: [0, 3, 9]), expected, tolerance: 1e-6)
    }

    /// PyTorch's bilinear resize (align_corners=False) of one axis: src = max((o + 0.5) / s - 0.5, 0),
    /// i0 = floor(src), i1 = min(i0 + 1, n - 1), l = src - i0.
    private func pytorchAxis(_ o: Int, factor s: Int, size n: Int) -> (Int, Int, Double) {
        let src = max((Double(o) + 0.5) / Double(s) - 0.5, 0)
        let i0 = Int(src.rounded(.down))
        return (i0, min(i0 + 1, n - 1), src - Double(i0))
    }

    func testMatchesPyTorchsFormulation() throws {
        for (sy, sx, scale, shape) in [
            (2, 2, 1.0, ActivationShape(channels: 3, height: 5, width: 7)),
            (3, 2, 0.5, ActivationShape(channels: 2, height: 4, width: 3)),
            (1, 4, 1.0, ActivationShape(channels: 2, height: 3, width: 2)),
            (2, 2, 1.0, ActivationShape(channels: 8, height: 40, width: 41)),  // rows shared between the cores
            (4, 3, 2.0, ActivationShape(channels: 1, height: 1, width: 1)),  // one pixel: copies of it
        ] {
            let network = try S.single(.upsample(Upsample(strideY: sy, strideX: sx, scale: Float(scale), interpolation: .bilinear)), input: shape)
            let input = S.seeded(shape.count, seed: 11)
            let outH = shape.height * sy, outW = shape.width * sx
            var expected: [Double] = []
            for c in 0..<shape.channels {
                func value(_ y: Int, _ x: Int) -> Double { Double(input[(c * shape.height + y) * shape.width + x]) }
                for y in 0..<outH {
                    let (y0, y1, ly) = pytorchAxis(y, factor: sy, size: shape.height)
                    for x in 0..<outW {
                        let (x0, x1, lx) = pytorchAxis(x, factor: sx, size: shape.width)
                        let top = (1 - lx) * value(y0, x0) + lx * value(y0, x1)
                        let bottom = (1 - lx) * value(y1, x0) + lx * value(y1, x1)
                        expected.append(scale * ((1 - ly) * top + ly * bottom))
                    }
                }
            }
            let what = "\(shape) by \(sy) x \(sx), scale \(scale)"
            XCTAssertEqual(network.layers[0].outputShape, ActivationShape(channels: shape.channels, height: outH, width: outW), what)
            S.assertClose(try S.runDouble(network, input: input), expected, tolerance: 1e-14)
            S.assertClose(try S.runFloat(network, input: input), expected, tolerance: 1e-6)
        }
    }

    func testNearestIsStillTheDefault() {
        XCTAssertEqual(Upsample(strideY: 2, strideX: 2).interpolation, .nearest)
        XCTAssertEqual(LayerKind.upsample(Upsample(strideY: 2, strideX: 2)).typeName, "upsample")
    }
}
