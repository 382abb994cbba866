import XCTest

@testable import FoldKit

/// Concatenation (route groups), upsample, reshape, zero padding and cropping, by hand.
final class DataMovementKernelTests: XCTestCase {
    typealias S = RuntimeTestSupport

    func testRouteGroupsTakeTheSecondHalfOfEachInput() throws {
        // input 4 x 1 x 2 = channels [0,1], [10,11], [20,21], [30,31]; a second input from an activation layer (x2)
        let input: [Float] = [0, 1, 10, 11, 20, 21, 30, 31]
        let network = try S.network(input: ActivationShape(channels: 4, height: 1, width: 2)) { b in
            try b.append(kind: .activation(.linear), inputs: [Network.inputIndex], source: S.source)
            try b.append(kind: .concatenation(Concatenation(groups: 2, groupID: 1)), inputs: [Network.inputIndex, 0], source: S.source)
            try b.append(kind: .concatenation(Concatenation()), inputs: [0, Network.inputIndex], source: S.source)
        }
        let out = try Executor<Double>(network: network).run(input: input.map(Double.init))
        XCTAssertEqual(network.layers[1].outputShape, ActivationShape(channels: 4, height: 1, width: 2))
        XCTAssertEqual(out[1], [20, 21, 30, 31, 20, 21, 30, 31])
        XCTAssertEqual(out[2], [0, 1, 10, 11, 20, 21, 30, 31, 0, 1, 10, 11, 20, 21, 30, 31])
    }

    func testUpsampleNearestWithScale() throws {
        let network = try S.single(.upsample(Upsample(strideY: 2, strideX: 3, scale: 0.5)), input: ActivationShape(channels: 1, height: 2, width: 2))
        let out = try S.runDouble(network, input: [1, 2, 3, 4])
        let row0: [Double] = [0.5, 0.5, 0.5, 1, 1, 1]
        let row1: [Double] = [1.5, 1.5, 1.5, 2, 2, 2]
        XCTAssertEqual(out, row0 + row0 + row1 + row1)
    }

    // Stride 2 (the duplicated-pair row), stride 1 in x, and 3 x 2; with and without scale; 40 x 40 x 41
    // inputs give more than 2^16 output elements, so rows are shared between the cores.
    func testUpsampleMatchesNearestNeighbourFormula() throws {
        for (sy, sx, scale, shape) in [
            (2, 2, 1.0, ActivationShape(channels: 40, height: 40, width: 41)),
            (2, 2, 0.25, ActivationShape(channels: 3, height: 5, width: 7)),
            (3, 1, 1.0, ActivationShape(channels: 2, height: 3, width: 4)),
            (1, 3, 2.0, ActivationShape(channels: 2, height: 3, width: 4)),
        ] {
            let network = try S.single(.upsample(Upsample(strideY: sy, strideX: sx, scale: Float(scale))), input: shape)
            let input = S.seeded(shape.count, seed: 4)
            let outH = shape.height * sy, outW = shape.width * sx
            var expected = [Double]()
            for c in 0..<shape.channels {
                for y in 0..<outH {
                    for x in 0..<outW { expected.append(scale * Double(input[(c * shape.height + y / sy) * shape.width + x / sx])) }
                }
            }
            XCTAssertEqual(try S.runDouble(network, input: input), expected, "\(sy) x \(sx), scale \(scale)")
            XCTAssertEqual(try S.runFloat(network, input: input).map(Double.init), expected.map { Double(Float($0)) }, "\(sy) x \(sx)")
        }
    }

    /// in[c, y, x] = 100c + 10y + x on 3 x 2 x 2.
    let codes: [Float] = [0, 1, 10, 11, 100, 101, 110, 111, 200, 201, 210, 211]
    let codeShape = ActivationShape(channels: 3, height: 2, width: 2)

    func testReshapeChannelsLastFlattensInHWCOrder() throws {
        let network = try S.single(.reshape(Reshape(target: .vector(12), order: .channelsLast)), input: codeShape)
        XCTAssertEqual(
            try S.runDouble(network, input: codes),
            [0, 100, 200, 1, 101, 201, 10, 110, 210, 11, 111, 211])
    }

    func testReshapeChannelsLastToAnotherMap() throws {
        // target 2 x 3 x 2 (C' = 2, H' = 3, W' = 2): NHWC flat order is kept, so out[c', y', x'] = flat[(y'*2 + x')*2 + c']
        let network = try S.single(
            .reshape(Reshape(target: ActivationShape(channels: 2, height: 3, width: 2), order: .channelsLast)), input: codeShape)
        let flat: [Double] = [0, 100, 200, 1, 101, 201, 10, 110, 210, 11, 111, 211]
        var expected = [Double](repeating: 0, count: 12)
        for c in 0..<2 { for y in 0..<3 { for x in 0..<2 { expected[(c * 3 + y) * 2 + x] = flat[(y * 2 + x) * 2 + c] } } }
        XCTAssertEqual(try S.runDouble(network, input: codes), expected)
        XCTAssertEqual(expected[0..<6], [0, 200, 101, 10, 210, 111])
    }

    func testReshapeChannelsFirstKeepsTheBuffer() throws {
        let network = try S.single(.reshape(Reshape(target: .vector(12), order: .channelsFirst)), input: codeShape)
        XCTAssertEqual(try S.runDouble(network, input: codes), codes.map(Double.init))
    }

    func testZeroPadAndCrop() throws {
        let shape = ActivationShape(channels: 1, height: 2, width: 2)
        let pad = try S.single(.zeroPad(Padding2D(top: 1, left: 0, bottom: 0, right: 2)), input: shape)
        XCTAssertEqual(try S.runDouble(pad, input: [1, 2, 3, 4]), [0, 0, 0, 0, 1, 2, 0, 0, 3, 4, 0, 0])
        let crop = try S.single(.crop(Padding2D(top: 1, left: 1, bottom: 0, right: 1)), input: ActivationShape(channels: 2, height: 2, width: 3))
        XCTAssertEqual(try S.runDouble(crop, input: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]), [5, 11])
    }

    func testIdentityAndDetectionPassThrough() throws {
        let network = try S.network(input: .vector(3)) { b in
            try b.append(kind: .identity(reason: "dropout"), inputs: [Network.inputIndex], source: S.source)
            try b.append(kind: .detection(DetectionHead(kind: .yolo, classes: 1, anchors: [1, 1], mask: [0])), inputs: [0], source: S.source)
        }
        let out = try Executor<Float>(network: network).run(input: [1, -2, 3])
        XCTAssertEqual(out, [[1, -2, 3], [1, -2, 3]])
    }
}
