import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit

/// `verify --json` lists the final boxes in image pixels with class names; `--draw` labels them.
final class VerifyDetectionsTests: XCTestCase {
    private func report(_ path: URL) throws -> VerificationReport {
        try JSONDecoder().decode(VerificationReport.self, from: Data(contentsOf: path))
    }

    /// yolo-fastest-1.1 on its dog.jpg (768 x 576), letterboxed into 320 x 320: the boxes are in the
    /// photo's pixels (the dog's box reaches below row 320, the input's size), named from coco.names
    /// beside the cfg, and the drawn PNG has the label's text colour next to the dog box's corner.
    func testRealDetectorBoxesInImagePixelsWithNamesAndLabels() throws {
        let folder = try TestData.sharedFile("real-models/yolo-fastest-1.1")
        let dir = try TestData.temporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let json = dir.appendingPathComponent("r.json"), png = dir.appendingPathComponent("boxes.png")
        let result = try CommandRunner.run([
            "verify", folder.appendingPathComponent("yolo-fastest-1.1.cfg").path, folder.appendingPathComponent("yolo-fastest-1.1.weights").path,
            "--image", folder.appendingPathComponent("dog.jpg").path, "--resize", "letterbox", "--json", json.path, "--draw", png.path,
        ])
        XCTAssertEqual(result.status, 0, result.stdout.suffix(800) + result.stderr)
        let detections = try XCTUnwrap(try report(json).detections)
        XCTAssertEqual(detections.frame.imageWidth, 768)
        XCTAssertEqual(detections.frame.imageHeight, 576)
        let dog = try XCTUnwrap(detections.referenceDetections.first { $0.className == "dog" })
        XCTAssertEqual(dog.classIndex, 16)
        XCTAssertGreaterThan(dog.bottom, 400)  // beyond the 320-pixel input: image pixels
        XCTAssertTrue(0 <= dog.left && dog.left < dog.right && dog.right <= 768 && 0 <= dog.top && dog.top < dog.bottom && dog.bottom <= 576)
        XCTAssertEqual(detections.candidateDetections.count, detections.referenceDetections.count)
        XCTAssertTrue(detections.candidateDetections.contains { $0.className == "dog" && abs($0.left - dog.left) < 1 })
        XCTAssertTrue(result.stdout.contains("dog 0."), String(result.stdout.suffix(400)))
        XCTAssertTrue(result.stdout.contains(String(format: "  class 16 (dog)  score %.4f  box x", dog.score)), String(result.stdout.suffix(1200)))

        // The label strip: the class colour with text pixels within a label's height above the corner.
        let picture = try ImageFile.read(path: png.path)
        let background = BoxDrawing.color(for: 16), ink = BoxDrawing.textColor(on: background)
        func count(_ color: (UInt8, UInt8, UInt8)) -> Int {
            var n = 0
            for y in max(0, Int(dog.top) - 12)..<Int(dog.top) {
                for x in Int(dog.left)..<Int(dog.left) + 40 {
                    let i = (y * picture.width + x) * 3
                    if (picture.pixels[i], picture.pixels[i + 1], picture.pixels[i + 2]) == color { n += 1 }
                }
            }
            return n
        }
        XCTAssertGreaterThan(count(ink), 20)
        XCTAssertGreaterThan(count(background), 20)
    }

    /// A Fixtures cfg with seeded weights and no image: boxes in the 8 x 8 input's pixels, named from the
    /// `.names` file named like the cfg; `--names` overrides it.
    func testSeededFixtureBoxesInInputPixelsWithNames() throws {
        let dir = try TestData.temporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        let cfg = dir.appendingPathComponent("yolo-head.cfg"), weights = dir.appendingPathComponent("yolo-head.weights")
        try FileManager.default.copyItem(at: TestData.fixture("darknet/cfg/yolo-head.cfg"), to: cfg)
        try "cat\ndog\n".write(to: dir.appendingPathComponent("yolo-head.names"), atomically: true, encoding: .utf8)
        try "first\nsecond\n".write(to: dir.appendingPathComponent("other.names"), atomically: true, encoding: .utf8)
        XCTAssertEqual(try CommandRunner.run(["seed-weights", cfg.path, "--seed", "1", "--out", weights.path]).status, 0)
        let json = dir.appendingPathComponent("r.json")
        let result = try CommandRunner.run(["verify", cfg.path, weights.path, "--json", json.path])
        XCTAssertEqual(result.status, 0, String(result.stdout.suffix(800)))
        let detections = try XCTUnwrap(try report(json).detections)
        XCTAssertFalse(detections.referenceDetections.isEmpty)
        XCTAssertEqual(detections.frame.imageWidth, 8)
        for box in detections.referenceDetections {
            XCTAssertEqual(box.className, ["cat", "dog"][box.classIndex])
            XCTAssertTrue(0 <= box.left && box.left <= box.right && box.right <= 8 && 0 <= box.top && box.top <= box.bottom && box.bottom <= 8)
        }
        let pair = try XCTUnwrap(detections.pairs.first)
        XCTAssertEqual(detections.referenceDetections[0].left, Double(pair.reference.x - pair.reference.width / 2) * 8, accuracy: 1e-4)

        let overridden = try CommandRunner.run([
            "verify", cfg.path, weights.path, "--json", json.path, "--names", dir.appendingPathComponent("other.names").path,
        ])
        XCTAssertEqual(overridden.status, 0)
        XCTAssertTrue(try report(json).detections?.referenceDetections.allSatisfy { ["first", "second"].contains($0.className ?? "") } ?? false)
        let short = dir.appendingPathComponent("short.names")
        try "one\n".write(to: short, atomically: true, encoding: .utf8)
        XCTAssertEqual(try CommandRunner.run(["verify", cfg.path, weights.path, "--names", short.path]).status, 1)
    }
}
