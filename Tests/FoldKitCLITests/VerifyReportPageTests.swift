import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// `verify --report audit.html` (Docs/Verify.md "Audit page"): the page is well-formed XHTML without
/// scripts or outside references, holds the numbers of the `--json` report, and renders in a real
/// browser (headless Chromium) with the chart and the image visible and no console errors.
final class VerifyReportPageTests: XCTestCase {
    private func temporaryFolder() throws -> URL {
        let dir = try TestData.temporaryDirectory("foldkit-report")
        addTeardownBlock { try? FileManager.default.removeItem(at: dir) }
        return dir
    }

    /// Runs verify --fp16 on the fixture detector with the gradient image; returns the page and the `--json`
    /// report, decoded with JSONDecoder (exact; Linux's JSONSerialization rounds some doubles in the last bit).
    private func verifyWithReport(in dir: URL) throws -> (page: URL, json: VerificationReport) {
        let cfg = TestData.fixture("darknet/cfg/yolo-head.cfg").path
        let weights = dir.appendingPathComponent("w.weights").path
        XCTAssertEqual(try CommandRunner.run(["seed-weights", cfg, "--out", weights]).status, 0)
        let page = dir.appendingPathComponent("audit.html"), json = dir.appendingPathComponent("r.json")
        let run = try CommandRunner.run([
            "verify", cfg, weights, "--fp16", "--image", TestData.fixture("images/gradient.png").path,
            "--report", page.path, "--json", json.path,
        ])
        XCTAssertEqual(run.status, 0, run.stdout + run.stderr)
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return (page, try decoder.decode(VerificationReport.self, from: Data(contentsOf: json)))
    }

    /// Every element below `node` named `name` (local name, whatever the namespace).
    private func elements(_ name: String, in node: XMLNode) -> [XMLElement] {
        var found: [XMLElement] = []
        for child in node.children ?? [] {
            if let element = child as? XMLElement, element.localName == name { found.append(element) }
            found += elements(name, in: child)
        }
        return found
    }

    /// The attribute `name` of `element` (looked up among its attributes: FoundationXML's `attribute(forName:)`
    /// misses unprefixed attributes of elements in a default namespace).
    private func attribute(_ element: XMLElement, _ name: String) -> String? {
        element.attributes?.first { ($0.localName ?? $0.name) == name }?.stringValue
    }

    private func number(_ text: String?) -> Double? {
        switch text {
        case "inf": return .infinity
        case "-inf": return -.infinity
        case "nan": return .nan
        default: return text.flatMap(Double.init)
        }
    }

    func testPageIsWellFormedSelfContainedAndHoldsTheJSONNumbers() throws {
        let dir = try temporaryFolder()
        let (page, report) = try verifyWithReport(in: dir)
        let document = try XMLDocument(contentsOf: page, options: [])
        let root = try XCTUnwrap(document.rootElement())
        XCTAssertEqual(root.localName, "html")
        XCTAssertTrue(elements("script", in: root).isEmpty, "no scripts")
        XCTAssertTrue(elements("link", in: root).isEmpty, "no linked resources")
        // Every reference is inline: href / src are data: URIs only.
        func references(_ node: XMLNode) -> [String] {
            var found: [String] = []
            if let element = node as? XMLElement {
                found += (element.attributes ?? []).filter { ["href", "src", "xlink:href"].contains($0.name ?? "") }.compactMap(\.stringValue)
            }
            for child in node.children ?? [] { found += references(child) }
            return found
        }
        let refs = references(root)
        XCTAssertEqual(refs.count, 1, "the image, once: \(refs.map { String($0.prefix(40)) })")
        XCTAssertTrue(refs.allSatisfy { $0.hasPrefix("data:image/png;base64,") }, "\(refs.map { String($0.prefix(40)) })")
        let embedded = try XCTUnwrap(Data(base64Encoded: String(refs[0].dropFirst("data:image/png;base64,".count))))
        XCTAssertEqual(embedded, try Data(contentsOf: TestData.fixture("images/gradient.png")), "the image file itself")

        let verdict = try XCTUnwrap(elements("span", in: root).first { attribute($0, "id") == "verdict" })
        XCTAssertEqual(verdict.stringValue, report.verdict.label)

        // Per precision: the table rows and the chart's dots carry the JSON's numbers exactly.
        XCTAssertEqual(report.precisions.count, 2)
        let sections = elements("section", in: root).filter { attribute($0, "class") == "precision" }
        XCTAssertEqual(sections.count, report.precisions.count)
        for (section, precision) in zip(sections, report.precisions) {
            let name = precision.precision.rawValue
            XCTAssertEqual(attribute(section, "data-precision"), name)
            let table = try XCTUnwrap(elements("table", in: root).first { attribute($0, "data-precision") == name }, "\(name): no layer table")
            let rows = elements("tr", in: table).filter { attribute($0, "data-layer") != nil }
            XCTAssertEqual(rows.count, precision.layers.count, name)
            let dots = elements("circle", in: section)
            XCTAssertEqual(dots.count, precision.layers.count, "\(name): one dot per layer")
            XCTAssertEqual(elements("polyline", in: section).filter { attribute($0, "class") == "tolerance" }.count, 1, "\(name): tolerance line")
            for (i, layer) in precision.layers.enumerated() {
                let expected: [String: Double] = [
                    "maxAbsReference": layer.candidate.maxAbsReference, "maxAbsDeviation": layer.candidate.maxAbsDeviation,
                    "relativeDeviation": layer.candidate.relativeDeviation, "allowed": layer.allowed,
                    "controlMaxAbsDeviation": layer.control.maxAbsDeviation,
                ]
                XCTAssertEqual(attribute(rows[i], "data-layer"), String(layer.index))
                let cells = elements("td", in: rows[i])
                for (field, value) in expected {
                    let cell = try XCTUnwrap(cells.first { attribute($0, "data-field") == field }, "\(name) layer \(i) \(field)")
                    XCTAssertEqual(number(attribute(cell, "data-value")), value, "\(name) layer \(i) \(field)")
                }
                XCTAssertEqual(number(attribute(dots[i], "data-value")), layer.candidate.maxAbsDeviation, "\(name) dot \(i)")
                XCTAssertEqual(cells.last?.stringValue, layer.pass ? "ok" : "OVER")
            }
        }

        // float16 hazards: the JSON's list (empty here: the section says none).
        let hazards = try XCTUnwrap(report.float16Hazards)
        let hazardSection = try XCTUnwrap(elements("section", in: root).first { attribute($0, "id") == "float16-hazards" })
        XCTAssertEqual(elements("tr", in: hazardSection).filter { attribute($0, "data-layer") != nil }.count, hazards.count)
        if hazards.isEmpty { XCTAssertTrue(hazardSection.stringValue?.contains("None") == true) }

        // Boxes: drawn and listed, the same as the JSON's, in image pixels.
        let boxes = try XCTUnwrap(report.detections?.referenceDetections)
        XCTAssertFalse(boxes.isEmpty)
        let detections = try XCTUnwrap(elements("section", in: root).first { attribute($0, "id") == "detections" })
        XCTAssertEqual(elements("rect", in: detections).filter { attribute($0, "class") == "box" }.count, min(boxes.count, AuditPage.shownBoxes))
        let listed = elements("tr", in: detections).dropFirst()
        XCTAssertEqual(listed.count, min(boxes.count, AuditPage.shownBoxes))
        for (row, box) in zip(listed, boxes) {
            XCTAssertEqual(elements("td", in: row).first?.stringValue, box.label)
            let values = elements("td", in: row).compactMap { number(attribute($0, "data-value")) }
            XCTAssertEqual(values, [box.left, box.top, box.right, box.bottom])
        }
    }

    /// A failing run (an rtol no float32 run meets) still writes the page: FAIL, the failing rows marked
    /// and red dots, as many as the JSON report has layers over tolerance; no image, no picture.
    func testFailingRunWritesAFailPage() throws {
        let dir = try temporaryFolder()
        let cfg = TestData.fixture("darknet/cfg/yolo-head.cfg").path
        let weights = dir.appendingPathComponent("w.weights").path
        XCTAssertEqual(try CommandRunner.run(["seed-weights", cfg, "--out", weights]).status, 0)
        let page = dir.appendingPathComponent("fail.html")
        let run = try CommandRunner.run(["verify", cfg, weights, "--rtol", "1e-15", "--report", page.path, "--json", "-"])
        XCTAssertEqual(run.status, 2, run.stderr)
        let decoder = JSONDecoder()
        decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        let report = try decoder.decode(VerificationReport.self, from: Data(run.stdout.utf8))
        let failing = report.precisions.flatMap(\.layers).filter { !$0.pass }.count
        XCTAssertGreaterThan(failing, 0)
        let root = try XCTUnwrap(try XMLDocument(contentsOf: page, options: []).rootElement())
        XCTAssertEqual(elements("span", in: root).first { attribute($0, "id") == "verdict" }?.stringValue, "FAIL")
        XCTAssertEqual(elements("tr", in: root).filter { attribute($0, "class") == "over" }.count, failing)
        XCTAssertEqual(elements("circle", in: root).filter { attribute($0, "fill") == "#c62828" }.count, failing)
        XCTAssertTrue(elements("image", in: root).isEmpty, "no --image: no picture")
    }

    /// Headless Chromium renders the page: the chart and the image are there (not blank) and the console is clean.
    func testPageRendersInChromium() throws {
        guard
            let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].first(
                where: FileManager.default.isExecutableFile)
        else {
            if TestData.isContinuousIntegration { XCTFail("chromium is missing under CI (.ci/install installs it)") }
            throw XCTSkip("chromium is not installed: the audit page is not rendered (apt-get install chromium, or .ci/install)")
        }
        let dir = try temporaryFolder()
        let (page, _) = try verifyWithReport(in: dir)
        let screenshot = dir.appendingPathComponent("page.png")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: chromium)
        process.arguments = [
            "--headless", "--disable-gpu", "--no-sandbox", "--hide-scrollbars", "--user-data-dir=\(dir.appendingPathComponent("profile").path)",
            "--enable-logging=stderr", "--v=0", "--screenshot=\(screenshot.path)", "--window-size=1200,3000", page.absoluteString,
        ]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let log = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, log)
        let console = log.split(separator: "\n").filter { $0.contains("CONSOLE") || $0.contains("Uncaught") }
        XCTAssertTrue(console.isEmpty, "console messages:\n\(console.joined(separator: "\n"))")

        let picture = try ImageFile.read(path: screenshot.path)
        func pixel(_ x: Int, _ y: Int) -> (Int, Int, Int) {
            let i = (y * picture.width + x) * 3
            return (Int(picture.pixels[i]), Int(picture.pixels[i + 1]), Int(picture.pixels[i + 2]))
        }
        // The chart: where the candidate series' blue (#1565c0) is drawn; it spans the plot and the region varies.
        var xs: [Int] = [], ys: [Int] = []
        for y in 0..<picture.height {
            for x in 0..<picture.width {
                let (r, g, b) = pixel(x, y)
                if abs(r - 0x15) < 12 && abs(g - 0x65) < 12 && abs(b - 0xc0) < 12 { xs.append(x); ys.append(y) }
            }
        }
        let left = try XCTUnwrap(xs.min(), "no chart series drawn"), right = try XCTUnwrap(xs.max())
        XCTAssertGreaterThan(right - left, 400, "the candidate series spans the chart")
        var sum = 0.0, squares = 0.0, count = 0.0
        for y in (ys.min() ?? 0)...(ys.max() ?? 0) {
            for x in left...right {
                let (r, g, b) = pixel(x, y)
                let v = Double(r + g + b) / 3
                sum += v; squares += v * v; count += 1
            }
        }
        let variance = squares / count - (sum / count) * (sum / count)
        XCTAssertGreaterThan(variance, 100, "the chart region is blank")

        // The image: pixels of the gradient picture's own saturated colours (it is shown pixelated, colours kept).
        let source = try ImageFile.read(path: TestData.fixture("images/gradient.png").path)
        var colours = Set<Int>()
        for i in stride(from: 0, to: source.pixels.count, by: 3) {
            let (r, g, b) = (Int(source.pixels[i]), Int(source.pixels[i + 1]), Int(source.pixels[i + 2]))
            if max(r, g, b) - min(r, g, b) > 60 { colours.insert(r << 16 | g << 8 | b) }
        }
        var matching = 0
        for i in stride(from: 0, to: picture.pixels.count, by: 3)
        where colours.contains(Int(picture.pixels[i]) << 16 | Int(picture.pixels[i + 1]) << 8 | Int(picture.pixels[i + 2])) {
            matching += 1
        }
        XCTAssertGreaterThan(matching, 20_000, "the image is not shown (480 x 288 CSS pixels expected)")
    }
}
