import FoldKitTestSupport
import Foundation
import XCTest

/// `verify` and `fixtures` on a network that does not fit the memory budget exit 1 before allocating
/// anything, naming the memory they would need and the way out; nothing is left behind.
final class MemoryBudgetTests: XCTestCase {
    private let cfg = """
        [net]
        width=8000
        height=8000
        channels=3

        [convolutional]
        batch_normalize=1
        filters=16
        size=3
        stride=1
        pad=1
        activation=leaky
        """

    func testEightThousandSquaredIsRefusedNamingTheMemory() throws {
        let dir = try TestData.temporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let cfgPath = dir.appendingPathComponent("big.cfg").path
        try cfg.write(toFile: cfgPath, atomically: true, encoding: .utf8)
        let weights = dir.appendingPathComponent("big.weights").path
        XCTAssertEqual(try CommandRunner.run(["seed-weights", cfgPath, "--out", weights]).status, 0)
        let out = dir.appendingPathComponent("pack")
        for command in [["verify", cfgPath, weights], ["fixtures", cfgPath, weights, "--out", out.path]] {
            // 3 x 8000 x 8000 in float64 alone is 1.5 GB; the 16-channel output 8.2 GB.
            let run = try CommandRunner.run(command + ["--max-memory", "2G"])
            XCTAssertEqual(run.status, 1, command[0] + ": " + run.stderr)
            XCTAssertTrue(run.stderr.contains("\(command[0]) needs about"), run.stderr)
            XCTAssertTrue(run.stderr.contains("more than the 2.1 GB this process may use"), run.stderr)
            XCTAssertTrue(run.stderr.contains("--height/--width"), run.stderr)
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        XCTAssertEqual(left, ["big.cfg", "big.weights"], "nothing is left behind")
        // The same network at 64 x 64 fits the same budget.
        XCTAssertEqual(
            try CommandRunner.run(["verify", cfgPath, weights, "--height", "64", "--width", "64", "--max-memory", "2G", "--quiet"]).status, 0)
    }
}
