import XCTest

@testable import FoldKit

/// Darknet's [reorg] / [reorg3d] against darknet's reorg_cpu written out here, and tf.space_to_depth
/// against TensorFlow's NHWC definition.
final class ReorgKernelTests: XCTestCase {
    typealias S = RuntimeTestSupport

    /// darknet blas.c reorg_cpu (batch 1), as written in AlexeyAB's and pjreddie's darknet:
    /// the arguments are named out_w, out_h, out_c, and in_c = out_c / (stride*stride).
    static func darknetReorgCPU(_ x: [Double], w: Int, h: Int, c: Int, stride: Int, forward: Bool) -> [Double] {
        var out = [Double](repeating: .nan, count: x.count)
        let inC = c / (stride * stride)
        for k in 0..<c {
            for j in 0..<h {
                for i in 0..<w {
                    let inIndex = i + w * (j + h * k)
                    let c2 = k % inC
                    let offset = k / inC
                    let w2 = i * stride + offset % stride
                    let h2 = j * stride + offset / stride
                    let outIndex = w2 + w * stride * (h2 + h * stride * c2)
                    if forward { out[outIndex] = x[inIndex] } else { out[inIndex] = x[outIndex] }
                }
            }
        }
        return out
    }

    func run(_ flavor: Reorg.Flavor, input: [Float], shape: ActivationShape, stride: Int = 2) throws -> (ActivationShape, [Double]) {
        let network = try S.single(.reorg(Reorg(stride: stride, flavor: flavor)), input: shape)
        return (network.layers[0].outputShape, try S.runDouble(network, input: input))
    }

    func testDarknetReorgIsReorgCPUWithInputDimensionsAndForwardZero() throws {
        // [reorg]: AlexeyAB forward_reorg_old_layer / pjreddie forward_reorg_layer call reorg_cpu(input, l.w, l.h, l.c, ..., 0, output)
        let shape = ActivationShape(channels: 8, height: 4, width: 2)
        let input = (0..<shape.count).map(Float.init)
        let (outShape, out) = try run(.darknetReorg, input: input, shape: shape)
        XCTAssertEqual(outShape, ActivationShape(channels: 32, height: 2, width: 1))
        XCTAssertEqual(out, Self.darknetReorgCPU(input.map(Double.init), w: 2, h: 4, c: 8, stride: 2, forward: false))
        // by hand: out[0] = in[0]; out[1] (i=1, j=0, k=0): c2 = 0, offset = 0, w2 = 2, h2 = 0 -> in[2]
        // out[8] (k=1, j=0, i=0): c2 = 1, offset = 0 -> in[w*s*(h*s*1)] = in[2*2*8] = in[32]
        XCTAssertEqual(out[0], 0)
        XCTAssertEqual(out[1], 2)
        XCTAssertEqual(out[8], 32)
        // k=2 (c2 = 0, offset = 1): w2 = 1 -> in[1]
        XCTAssertEqual(out[16], 1)
    }

    func testDarknetReorgRefusesChannelsNotDivisibleByStrideSquared() throws {
        let network = try S.single(.reorg(Reorg(stride: 2, flavor: .darknetReorg)), input: ActivationShape(channels: 3, height: 4, width: 4))
        XCTAssertThrowsError(try Executor<Double>(network: network)) { error in
            XCTAssertEqual((error as? FoldKitError)?.kind, .badInput)
        }
    }

    func testDarknetReorg3dIsReorgCPUWithOutputDimensions() throws {
        // [reorg3d]: AlexeyAB forward_reorg_layer calls reorg_cpu(input, l.out_w, l.out_h, l.out_c, ..., 0, output)
        let shape = ActivationShape(channels: 3, height: 4, width: 6)
        let input = (0..<shape.count).map(Float.init)
        let (outShape, out) = try run(.darknetReorg3d, input: input, shape: shape)
        XCTAssertEqual(outShape, ActivationShape(channels: 12, height: 2, width: 3))
        XCTAssertEqual(out, Self.darknetReorgCPU(input.map(Double.init), w: 3, h: 2, c: 12, stride: 2, forward: false))
    }

    func testSpaceToDepthFollowsTensorFlowNHWC() throws {
        let shape = ActivationShape(channels: 2, height: 4, width: 6)
        let input = S.seeded(shape.count, seed: 9)
        let (outShape, out) = try run(.spaceToDepth, input: input, shape: shape)
        XCTAssertEqual(outShape, ActivationShape(channels: 8, height: 2, width: 3))
        // NHWC: out[y, x, (dy*bs + dx)*C + c] = in[y*bs + dy, x*bs + dx, c], then stored channel-major
        let bs = 2, c = 2, h = 4, w = 6
        var nhwcIn = [Double](repeating: 0, count: shape.count)
        for ch in 0..<c { for y in 0..<h { for x in 0..<w { nhwcIn[(y * w + x) * c + ch] = Double(input[(ch * h + y) * w + x]) } } }
        let oh = h / bs, ow = w / bs, oc = c * bs * bs
        var nhwcOut = [Double](repeating: 0, count: shape.count)
        for y in 0..<oh {
            for x in 0..<ow {
                for dy in 0..<bs {
                    for dx in 0..<bs {
                        for ch in 0..<c {
                            nhwcOut[(y * ow + x) * oc + (dy * bs + dx) * c + ch] = nhwcIn[((y * bs + dy) * w + x * bs + dx) * c + ch]
                        }
                    }
                }
            }
        }
        var expected = [Double](repeating: 0, count: shape.count)
        for ch in 0..<oc { for y in 0..<oh { for x in 0..<ow { expected[(ch * oh + y) * ow + x] = nhwcOut[(y * ow + x) * oc + ch] } } }
        XCTAssertEqual(out, expected)
    }

    func testStride3() throws {
        let shape = ActivationShape(channels: 9, height: 3, width: 6)
        let input = (0..<shape.count).map(Float.init)
        let (_, out) = try run(.darknetReorg, input: input, shape: shape, stride: 3)
        XCTAssertEqual(out, Self.darknetReorgCPU(input.map(Double.init), w: 6, h: 3, c: 9, stride: 3, forward: false))
    }
}
