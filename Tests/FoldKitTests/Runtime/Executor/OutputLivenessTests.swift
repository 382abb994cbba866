import FoldKitTestSupport
import XCTest

@testable import FoldKit
@testable import FoldKitRuntime

/// `OutputLiveness`: the last reader of every output on route/shortcut graphs, and that releasing by it
/// never drops an output a later layer still reads.
final class OutputLivenessTests: XCTestCase {
    typealias S = RuntimeTestSupport

    /// 0 act(in), 1 act(0), 2 route(0), 3 shortcut(2, 1), 4 act(3), 5 route(1, 4), 6 head(5).
    func testLastReaderOnHandBuiltRouteAndShortcutGraph() throws {
        let network = try S.network(input: ActivationShape(channels: 2, height: 3, width: 3)) { b in
            let a0 = try b.append(kind: .activation(.leaky(slope: 0.1)), inputs: [Network.inputIndex], source: S.source)
            let a1 = try b.append(kind: .activation(.mish), inputs: [a0], source: S.source)
            let r2 = try b.append(kind: .concatenation(Concatenation()), inputs: [a0], source: S.source)
            let s3 = try b.append(kind: .sum(ElementwiseSum(activation: .linear)), inputs: [r2, a1], source: S.source)
            let a4 = try b.append(kind: .activation(.logistic), inputs: [s3], source: S.source)
            let r5 = try b.append(kind: .concatenation(Concatenation()), inputs: [a1, a4], source: S.source)
            try b.append(kind: .identity(reason: "head"), inputs: [r5], source: S.source)
        }
        let liveness = OutputLiveness(network)
        // Layer 0 is read by 1 and 2, layer 1 by 3 and 5 (a route far ahead), 6 by nobody.
        XCTAssertEqual(liveness.lastReader, [2, 5, 3, 4, 5, 6, 6])
        XCTAssertEqual(liveness.released(after: 0), [])
        XCTAssertEqual(liveness.released(after: 2), [0])
        XCTAssertEqual(liveness.released(after: 5), [1, 4])
        XCTAssertEqual(liveness.released(after: 6), [5, 6])
        XCTAssertEqual(liveness.released(after: 7), [])
        // After layer 2: 0, 1, 2 are held; after 5: 1, 4, 5 (before 1 and 4 go).
        XCTAssertEqual(liveness.peakLiveCount, 3)
    }

    /// Runs the layers in order, releasing by `released(after:)`: every input must still be held when its
    /// reader runs, and every output is released exactly once (Darknet routes, shortcuts and yolo heads).
    func testReleasingByLivenessNeverDropsAnOutputBeforeItsLastReader() throws {
        for name in ["yolov4.cfg", "yolov3.cfg", "yolov4-tiny-3l.cfg", "yolov7-tiny.cfg"] {
            let cfg = try TestData.sharedFile("darknet-cfg/\(name)")
            let network = try ModelLoader.load(paths: [cfg.path], requireWeights: false)
            let liveness = OutputLiveness(network)
            var held = Set<Int>(), releasedCount = [Int](repeating: 0, count: network.layers.count), peak = 0
            var readAfterRelease: [String] = []
            for layer in network.layers {
                for input in layer.inputs where input != Network.inputIndex && !held.contains(input) {
                    readAfterRelease.append("layer \(layer.index) reads \(input)")
                }
                held.insert(layer.index)
                peak = max(peak, held.count)
                for released in liveness.released(after: layer.index) {
                    releasedCount[released] += 1
                    held.remove(released)
                }
            }
            XCTAssertEqual(readAfterRelease, [], name)
            XCTAssertEqual(releasedCount, [Int](repeating: 1, count: network.layers.count), name)
            XCTAssertTrue(held.isEmpty, name)
            XCTAssertEqual(liveness.peakLiveCount, peak, name)
            // The point of it: far fewer outputs than layers are held at once.
            XCTAssertLessThan(peak * 4, network.layers.count, "\(name): \(peak) of \(network.layers.count) outputs held at once")
        }
    }
}
