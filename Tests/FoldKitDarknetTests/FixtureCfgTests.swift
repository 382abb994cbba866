import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKitCore
@testable import FoldKitDarknet

/// The project's own cfgs under Fixtures/darknet/cfg read with the shapes worked out by hand in their
/// comments.
final class FixtureCfgTests: XCTestCase {
    static let expectedShapes: [String: [String]] = [
        "conv-basic.cfg": ["8x13x11", "6x7x6", "6x7x6", "4x7x6", "5x7x6", "6x7x6", "4x8x7", "3x3x3", "7x3x3"],
        "maxpool-spp.cfg": [
            "6x11x13", "6x11x13", "6x11x13", "6x11x13", "6x11x13", "6x11x13", "6x11x13", "6x11x13",
            "24x11x13", "24x6x7", "24x3x4", "24x1x1", "24x1x1",
        ],
        "route-reorg.cfg": ["8x8x12", "8x4x6", "16x4x6", "8x4x6", "8x4x6", "16x4x6", "8x8x12", "32x4x6", "48x4x6", "10x4x6"],
        "shortcut-upsample.cfg": [
            "8x6x10", "8x6x10", "8x6x10", "4x6x10", "4x6x10", "12x6x10", "12x6x10", "12x3x5", "12x6x10",
            "24x6x10", "5x6x10", "5x18x30",
        ],
        "attention.cfg": ["8x7x9", "8x1x1", "4x1x1", "8x1x1", "8x7x9", "8x7x9", "8x7x9", "4x4x5"],
        "activations-opencv.cfg": Array(repeating: "4x4x5", count: 7),
        "activations-darknet-only.cfg": Array(repeating: "4x4x5", count: 5),
        "connected.cfg": ["4x9x7", "4x5x4", "12x1x1", "12x1x1", "6x1x1", "6x1x1", "6x1x1"],
        "yolo-head.cfg": ["8x4x4", "21x4x4", "21x4x4", "8x4x4", "8x8x8", "21x8x8", "21x8x8"],
        "region-head.cfg": ["6x5x7", "20x5x7", "20x5x7"],
        "darknet-only.cfg": [
            "4x13x11", "4x11x9", "4x11x5", "4x11x5", "4x6x3", "4x6x3", "4x6x3", "4x6x3", "36x2x1", "36x2x1",
            "36x1x1", "36x1x1",
        ],
    ]

    private func read(_ name: String) throws -> Network {
        try DarknetReader.read(cfgPath: TestData.fixture("darknet/cfg/\(name)").path, weightsPath: nil)
    }

    func testEveryFixtureCfgHasTheHandComputedShapes() throws {
        let directory = TestData.fixture("darknet/cfg")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasSuffix(".cfg") }
        XCTAssertEqual(Set(names), Set(Self.expectedShapes.keys))
        for (name, shapes) in Self.expectedShapes {
            let network = try read(name)
            XCTAssertEqual(network.layers.map(\.outputShape.description), shapes, name)
        }
    }

    func testConvolutionOptions() throws {
        let network = try read("conv-basic.cfg")
        func conv(_ i: Int) throws -> Convolution {
            guard case .convolution(let c) = network.layers[i].kind else {
                throw FixtureProblem("Fixtures/darknet/cfg/conv-basic.cfg", "layer \(i) is \(network.layers[i].kind.typeName), not a convolution")
            }
            return c
        }
        XCTAssertNotNil(try conv(0).batchNorm)
        XCTAssertNil(try conv(0).bias)
        XCTAssertNil(try conv(1).batchNorm)
        XCTAssertNotNil(try conv(1).bias)
        XCTAssertEqual(try conv(1).strideY, 2)
        XCTAssertEqual(try conv(2).groups, 6)
        XCTAssertEqual(try conv(2).weights.shape, [6, 1, 3, 3])
        XCTAssertEqual(try conv(3).groups, 2)
        XCTAssertNil(try conv(3).batchNorm, "batch_normalize=0 means no batch norm")
        XCTAssertEqual(try conv(4).padding, .uniform(2))
        XCTAssertEqual(try conv(4).activation, .mish)
        XCTAssertEqual(try conv(5).activation, .logistic, "a convolution without activation= is logistic")
        XCTAssertEqual(try conv(6).padding, .uniform(1))
        XCTAssertEqual(try conv(7).padding, .zero)
        XCTAssertEqual(try conv(0).activation, .leaky(slope: 0.1))
    }

    func testDarknetOnlyGeometry() throws {
        let network = try read("darknet-only.cfg")
        guard case .convolution(let dilated) = network.layers[0].kind,
            case .convolution(let dilatedValid) = network.layers[1].kind,
            case .convolution(let strided) = network.layers[2].kind,
            case .pooling(let average) = network.layers[3].kind,
            case .pooling(let maxpool) = network.layers[10].kind
        else { return XCTFail("unexpected kinds") }
        // pad=1, dilation 2: darknet pads padding*dilation = 2 on each side
        XCTAssertEqual(dilated.padding, .uniform(2))
        XCTAssertEqual(dilated.dilationY, 2)
        // no pad: darknet's output (13-3)+1 = 11 needs (size-1)*(dilation-1) = 2 zero rows after the input
        XCTAssertEqual(dilatedValid.padding, Padding2D(top: 0, left: 0, bottom: 2, right: 2))
        XCTAssertEqual(strided.strideX, 2)
        XCTAssertEqual(strided.strideY, 1)
        XCTAssertEqual(average.kind, .average)
        XCTAssertFalse(average.countIncludesPadding)
        XCTAssertEqual(average.padding, .uniform(1))
        XCTAssertEqual(maxpool.padding, Padding2D(top: 0, left: 0, bottom: 1, right: 1))
        XCTAssertEqual(network.layers[7].inputs, [6, 5, 4])
        if case .reorg(let r) = network.layers[8].kind { XCTAssertEqual(r.flavor, .darknetReorg3d) } else { XCTFail("layer 8") }
        if case .softmax(let axis) = network.layers[11].kind { XCTAssertEqual(axis, .flattened(groups: 4)) } else { XCTFail("layer 11") }
        if case .batchNorm(let bn) = network.layers[5].kind { XCTAssertEqual(bn.channels, 4) } else { XCTFail("layer 5") }
    }

    func testMaxpoolPaddingSplit() throws {
        let network = try read("maxpool-spp.cfg")
        // size 2 stride 1: total padding 1 -> 0 before, 1 after; size 5: 2 and 2; size 2 stride 2: 0 and 1
        let expected: [Int: Padding2D] = [
            1: Padding2D(top: 0, left: 0, bottom: 1, right: 1), 3: .uniform(2), 5: .uniform(4),
            7: .uniform(6), 9: Padding2D(top: 0, left: 0, bottom: 1, right: 1), 10: .uniform(1), 11: .zero,
        ]
        for (index, padding) in expected {
            guard case .pooling(let p) = network.layers[index].kind else { return XCTFail("layer \(index)") }
            XCTAssertEqual(p.padding, padding, "layer \(index)")
            XCTAssertEqual(p.kind, .max)
        }
        XCTAssertEqual(network.layers[8].inputs, [7, 5, 3, 1])
    }

    func testRoutesShortcutsAndProducts() throws {
        let routes = try read("route-reorg.cfg")
        XCTAssertEqual(routes.layers[3].inputs, [2])
        XCTAssertEqual(routes.layers[4].inputs, [2])
        XCTAssertEqual(routes.layers[8].inputs, [7, 5])
        if case .concatenation(let c) = routes.layers[3].kind {
            XCTAssertEqual(c.groups, 2)
            XCTAssertEqual(c.groupID, 1)
        } else {
            XCTFail("layer 3")
        }
        if case .reorg(let r) = routes.layers[7].kind { XCTAssertEqual(r, Reorg(stride: 2, flavor: .darknetReorg)) } else { XCTFail("layer 7") }

        let shortcuts = try read("shortcut-upsample.cfg")
        XCTAssertEqual(shortcuts.layers[2].inputs, [1, 0])
        XCTAssertEqual(shortcuts.layers[4].inputs, [3, 1])
        if case .sum(let s) = shortcuts.layers[4].kind { XCTAssertEqual(s.activation, .leaky(slope: 0.1)) } else { XCTFail("layer 4") }
        if case .upsample(let u) = shortcuts.layers[11].kind { XCTAssertEqual(u.strideX, 3) } else { XCTFail("layer 11") }

        let attention = try read("attention.cfg")
        XCTAssertEqual(attention.layers[4].inputs, [0, 3])
        XCTAssertEqual(attention.layers[6].inputs, [4, 5])
    }

    func testEveryActivation() throws {
        func activations(_ name: String) throws -> [Activation] {
            try read(name).layers.map { layer -> Activation in
                guard case .convolution(let c) = layer.kind else {
                    throw FixtureProblem("Fixtures/darknet/cfg/\(name)", "layer \(layer.index) is \(layer.kind.typeName), not a convolution")
                }
                return c.activation
            }
        }
        XCTAssertEqual(try activations("activations-opencv.cfg"), [.leaky(slope: 0.1), .linear, .logistic, .relu, .tanh, .swish, .mish])
        XCTAssertEqual(try activations("activations-darknet-only.cfg"), [.relu6, .elu(alpha: 1), .darknetSelu, .hardMish, .gelu])
    }

    func testConnectedAndHeads() throws {
        let connected = try read("connected.cfg")
        guard case .fullyConnected(let fc) = connected.layers[2].kind else { return XCTFail("layer 2") }
        XCTAssertEqual(fc.inputCount, 80)
        XCTAssertNotNil(fc.batchNorm)
        XCTAssertNil(fc.bias)
        if case .identity = connected.layers[3].kind {} else { XCTFail("dropout should be identity") }
        if case .identity = connected.layers[6].kind {} else { XCTFail("cost should be identity") }

        let yolo = try read("yolo-head.cfg")
        XCTAssertEqual(yolo.outputIndices, [2, 6])
        guard case .detection(let first) = yolo.layers[2].kind, case .detection(let second) = yolo.layers[6].kind else { return XCTFail("heads") }
        XCTAssertEqual(first.mask, [3, 4, 5])
        XCTAssertEqual(first.scaleXY, 1.05)
        XCTAssertEqual(first.anchors.count, 12)
        XCTAssertTrue(second.newCoords)
        XCTAssertFalse(first.newCoords)

        let region = try read("region-head.cfg")
        guard case .detection(let head) = region.layers[2].kind else { return XCTFail("region") }
        XCTAssertEqual(head.kind, .region)
        XCTAssertEqual(head.mask, [0, 1])
        XCTAssertEqual(head.anchors, [1.08, 1.19, 3.42, 4.41])
        XCTAssertTrue(head.softmax)
    }
}
