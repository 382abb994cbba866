import XCTest

@testable import FoldKitCore
@testable import FoldKitKeras

/// Padding, kernel layouts and Keras 3 storage names, checked against hand computation.
final class KerasLayoutTests: XCTestCase {
    func testTensorFlowSamePadding() {
        func same(_ i: Int, _ k: Int, _ s: Int, _ d: Int) -> [Int] {
            let p = KerasLayout.samePadding(input: i, kernel: k, stride: s, dilation: d)
            return [p.before, p.after]
        }
        XCTAssertEqual(same(12, 3, 2, 1), [0, 1])  // out 6, total 5*2 + 3 - 12 = 1: TF pads the end more
        XCTAssertEqual(same(5, 3, 1, 1), [1, 1])
        XCTAssertEqual(same(4, 2, 1, 1), [0, 1])  // Tiny YOLO's 2x2 stride-1 'same' max pool
        XCTAssertEqual(same(7, 3, 2, 1), [1, 1])  // out 4, total 3*2 + 3 - 7 = 2
        XCTAssertEqual(same(6, 3, 1, 2), [2, 2])  // effective kernel 5
        XCTAssertEqual(same(8, 1, 2, 1), [0, 0])
    }

    func testKernelLayouts() {
        // HWIO (kh=1, kw=2, I=2, O=3): src[((y*kw + x)*I + i)*O + o] = 100*o + 10*i + x.
        var src: [Float] = []
        for x in 0..<2 { for i in 0..<2 { for o in 0..<3 { src.append(Float(100 * o + 10 * i + x)) } } }
        let oihw = KerasLayout.hwioToOIHW(src, kh: 1, kw: 2, inChannels: 2, outChannels: 3)
        // OIHW index ((o*2 + i)*1 + 0)*2 + x
        XCTAssertEqual(oihw, [0, 1, 10, 11, 100, 101, 110, 111, 200, 201, 210, 211])
        let flipped = KerasLayout.hwioToOIHW(src, kh: 1, kw: 2, inChannels: 2, outChannels: 3, flip: true)
        XCTAssertEqual(flipped, [1, 0, 11, 10, 101, 100, 111, 110, 201, 200, 211, 210])
        // Depthwise (kh=1, kw=1, in=2, m=2): src[i*m + j]; output channel o = i*m + j keeps that order.
        XCTAssertEqual(KerasLayout.depthwiseToOIHW([1, 2, 3, 4], kh: 1, kw: 1, inChannels: 2, multiplier: 2), [1, 2, 3, 4])
        // Theano OIHW 2x2 rotated by 180 degrees.
        XCTAssertEqual(KerasLayout.oihw([1, 2, 3, 4], outChannels: 1, inChannels: 1, kh: 2, kw: 2, flip: true), [4, 3, 2, 1])
        XCTAssertEqual(KerasLayout.transpose([1, 2, 3, 4, 5, 6], rows: 2, columns: 3), [1, 4, 2, 5, 3, 6])
    }

    func testKerasThreeStorageNames() {
        XCTAssertEqual(KerasLayout.snakeCase("Conv2D"), "conv2d")
        XCTAssertEqual(KerasLayout.snakeCase("PReLU"), "p_re_lu")
        XCTAssertEqual(KerasLayout.snakeCase("ReLU"), "re_lu")
        XCTAssertEqual(KerasLayout.snakeCase("GlobalAveragePooling2D"), "global_average_pooling2d")
        XCTAssertEqual(KerasLayout.snakeCase("UpSampling2D"), "up_sampling2d")
        XCTAssertEqual(KerasLayout.snakeCase("ELU"), "elu")
        XCTAssertEqual(KerasLayout.snakeCase("QDense"), "q_dense")
        XCTAssertEqual(KerasLayout.snakeCase("BatchNormalization"), "batch_normalization")
        XCTAssertEqual(KerasLayout.snakeCase("DepthwiseConv2D"), "depthwise_conv2d")
    }
}
