import FoldKitTestSupport
import XCTest

@testable import FoldKitCore
@testable import FoldKitDarknet

/// Reading a cfg takes time linear in its number of sections: building each layer once copied every
/// layer built before it (10,000 [maxpool] sections took 6.8 s in a release build, 20,000 took 27.8 s).
final class CfgScalingTests: XCTestCase {
    private func cfg(sections: Int) throws -> String {
        let head = "[net]\nwidth=8\nheight=8\nchannels=3\n\n[convolutional]\nfilters=4\nsize=3\nstride=1\npad=1\nactivation=leaky\n\n"
        let folder = try TestData.temporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("many.cfg").path
        try (head + String(repeating: "[maxpool]\nsize=1\nstride=1\n\n", count: sections)).write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testFiftyThousandSectionsReadInLinearTime() throws {
        let path = try cfg(sections: 50_000)
        let start = Date()
        let network = try DarknetReader.read(cfgPath: path, weightsPath: nil)
        let seconds = Date().timeIntervalSince(start)
        XCTAssertEqual(network.layers.count, 50_001)
        // A debug build reads them in about 2 s; copying the layers per section took minutes.
        XCTAssertLessThan(seconds, 20, "50,000 sections took \(seconds) s")
    }
}
