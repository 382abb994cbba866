import FoldKitDarknet
import FoldKitTestSupport
import XCTest

@testable import FoldKit
@testable import FoldKitRuntime

/// `ExecutorPass` with `.outputsOnly` holds exactly the outputs a later layer still reads (plus the network's
/// outputs), on route/shortcut/head graphs, and still computes what a run keeping everything computes.
final class ExecutorPassReleaseTests: XCTestCase {
    typealias S = RuntimeTestSupport

    func testHeldOutputsAreThoseStillReadAndResultsMatchKeepingEverything() throws {
        let dir = try TestData.temporaryDirectory("pass-release")
        defer { try? FileManager.default.removeItem(at: dir) }
        for name in ["route-reorg", "shortcut-upsample", "yolo-head", "maxpool-spp"] {
            let cfg = TestData.fixture("darknet/cfg/\(name).cfg").path
            let weights = dir.appendingPathComponent("\(name).weights").path
            try DarknetSeededWeights.write(cfgPath: cfg, seed: 4, to: weights)
            let network = try ModelLoader.load(paths: [cfg, weights])
            let input = S.seeded(network.inputShape.count, seed: 6).map { Double(($0 + 1) / 2) }
            let everything = try Executor<Double>(network: network).run(input: input, retention: .all)
            let liveness = OutputLiveness(network)
            let outputs = Set(network.outputIndices)
            for streamed in [false, true] {
                let pass = try Executor<Double>(network: network, options: ExecutorOptions(streamParameters: streamed))
                    .start(input: input, retention: .outputsOnly)
                var peak = 0
                while let (index, output) = try pass.next() {
                    XCTAssertEqual(output, everything[index], "\(name) layer \(index)")
                    // Held after layer j: outputs i <= j read by a layer after j, and network outputs.
                    let expected = (0...index).filter { liveness.lastReader[$0] > index || outputs.contains($0) }.count
                    XCTAssertEqual(pass.heldOutputCount, expected, "\(name) after layer \(index)")
                    peak = max(peak, pass.heldOutputCount)
                }
                XCTAssertLessThan(peak, network.layers.count, "\(name): not every output is held")
                XCTAssertEqual(pass.heldOutputCount, outputs.count, "\(name): only the network outputs remain")
            }
        }
    }
}
