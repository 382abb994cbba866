import FoldKit
import FoldKitDarknet
import FoldKitLoader
import FoldKitTestSupport
import Foundation
import XCTest

#if canImport(CBLAS)
    import CBLAS
#endif

/// The examples of Docs/Library.md, compiled and run: the code between `// example: NAME` and
/// `// end example` below is the page's code block after `<!-- example: NAME -->` (checked by
/// `testLibraryPageShowsTheTestedCode`), and the workflow they make up - load, fold, write blobs, verify,
/// write fixtures, read the blobs back with FoldKitLoader - runs end to end on a seeded model through the
/// public API only (no @testable import).
final class LibraryExamplesTests: XCTestCase {
    func testDocumentedWorkflowEndToEnd() throws {
        let dir = try TestData.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // conv-basic.cfg: plain, strided, depthwise, grouped and pointwise convolutions, batch norms.
        let cfgPath = TestData.fixture("darknet/cfg/conv-basic.cfg").path
        let weightsPath = dir.appendingPathComponent("conv-basic.weights").path
        try DarknetSeededWeights.write(cfgPath: cfgPath, seed: 21, to: weightsPath)
        let blobFolder = dir.appendingPathComponent("blobs")
        let fixtureFolder = dir.appendingPathComponent("fixtures")
        let onnxFolder = dir.appendingPathComponent("onnx")
        let ncnnFolder = dir.appendingPathComponent("ncnn")
        let engineFolder = dir.appendingPathComponent("engine-outputs")

        // example: load
        let network = try ModelLoader.load(paths: [cfgPath, weightsPath])
        print("\(network.layers.count) layers, input \(network.inputShape)")
        // end example

        // example: fold
        let folded = try FoldBatchNorm.apply(to: network)
        // end example

        // example: writeBlobs
        let manifest = try BlobWriter.write(network: network, to: blobFolder, options: .init(layout: .sliced))
        print("\(manifest.tensors.count) blobs")
        // end example

        // example: verify
        let input = ModelInput.seeded(0, shape: network.inputShape)
        let report = try Verifier.verify(original: network, folded: folded, input: input)
        print(report.text())

        let shipped = try BlobReader.read(folder: blobFolder, model: network)
        guard let fromBlobs = shipped.network else { throw FoldKitError(.badInput, "blobs missing or cut short: \(shipped.problems)") }
        let blobReport = try Verifier.verify(original: network, folded: fromBlobs, input: input, blobProblems: shipped.problems)
        print(blobReport.passed ? "blobs pass" : "blobs fail")
        // end example

        // example: fixtures
        let fixtures = try FixtureWriter.write(network: network, input: input, layout: .sliced, to: fixtureFolder)
        print("\(fixtures.tensors.count) fixture tensors")
        // end example

        // example: exportONNX
        let exported = try ONNXModelExport.write(
            network: network, input: input, options: ONNXExportOptions(opset: 17, elementType: .float32), classNames: nil, to: onnxFolder)
        print("outputs: \(exported.outputs.map(\.name))")
        // end example

        // example: exportNCNN
        let ncnnModel = try NCNNModelExport.write(
            network: network, input: input, options: NCNNExportOptions(weightType: .float16), classNames: nil, to: ncnnFolder)
        print("ncnn: \(ncnnModel.summary.layers) layers, outputs \(ncnnModel.outputs.map(\.name))")
        // end example
        XCTAssertEqual(ncnnModel.outputs, exported.outputs, "the same outputs, named alike")
        for file in ["model.param", "model.bin", "metadata.json", "test_data_set_0/input_0.pb"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: ncnnFolder.appendingPathComponent(file).path), file)
        }

        // An engine's outputs: here the reference outputs of the test data set, saved under the output names.
        try FileManager.default.createDirectory(at: engineFolder, withIntermediateDirectories: true)
        for (k, output) in exported.outputs.enumerated() {
            try FileManager.default.copyItem(
                at: onnxFolder.appendingPathComponent("test_data_set_0/output_\(k).pb"), to: engineFolder.appendingPathComponent(output.name + ".pb"))
        }

        // example: engineVerdict
        let computed = try EngineOutputs.read(folder: engineFolder.path, network: network)
        let engineReport = try Verifier.verifyEngineOutputs(
            original: network, engineOutputs: computed.values, input: input, options: .init(engineOutputs: engineFolder.path))
        print(engineReport.passed ? "engine passes" : "engine fails")
        // end example
        XCTAssertTrue(engineReport.passed, engineReport.text())
        XCTAssertEqual(engineReport.precisions.first?.layers.map(\.index), network.outputIndices)

        // example: loader
        let blobs = try BlobFolder(url: blobFolder)
        var weightCount = 0
        for layer in blobs.layers {  // type: "conv", "conv(depthwise)", "connected", "maxpool", ...
            guard let weights = blobs.tensor(layer: layer.index, role: .weights) else { continue }
            // weights.layout is .sliced or .slicedDepthwise; weights.shape is the padded shape.
            weightCount += weights.withUnsafeFloats { $0.count }
        }
        print("\(blobs.tensors.count) tensors, \(weightCount) weights")
        // end example

        let found = BLASThreadCount.current
        defer { BLASThreadCount.current = found }  // the example changes the process: put it back
        // example: threads
        let tuning = ProcessTuning(singleThreadedBLAS: true).apply()  // once, at the start of a program
        let executor = try Executor<Float>(network: folded, options: ExecutorOptions(productThreading: tuning.productThreading))
        let output = try executor.run(input: input.values).last ?? []
        // end example

        XCTAssertEqual(output.count, network.layers.last?.outputShape.count)
        XCTAssertEqual(network.layers.count, 9)
        XCTAssertTrue(report.passed, report.text())
        XCTAssertTrue(shipped.problems.isEmpty, "\(shipped.problems)")
        XCTAssertTrue(blobReport.passed, blobReport.text())
        XCTAssertEqual(fixtures.tensors.count, 1 + network.layers.count)
        XCTAssertEqual(blobs.tensors.map(\.name), manifest.tensors.map(\.name))
        // Every convolution: 2 blobs; the weights read by the loader hold the folded weights at the
        // sliced offsets of Docs/BlobFormat.md, and nothing else (zero padding).
        XCTAssertEqual(blobs.tensors.count, 2 * 9)
        var expectedCount = 0
        for layer in folded.layers {
            guard case .convolution(let c) = layer.kind, let loaded = blobs.tensor(layer: layer.index, role: .weights) else {
                XCTFail("layer \(layer.index) is a convolution with blobs in conv-basic.cfg"); continue
            }
            XCTAssertTrue(c.batchNorm == nil, "folded")
            let (O, I, kh, kw) = (c.outputChannels, c.inputChannels / c.groups, c.kernelHeight, c.kernelWidth)
            let depthwise = c.groups > 1 && c.groups == O && I == 1
            let paddedInputs = (I + 3) / 4 * 4
            let values = loaded.floats()
            let oihw = try c.weights.floats()
            var placed = [Float](repeating: 0, count: values.count)
            for o in 0..<O {
                for i in 0..<I {
                    for y in 0..<kh {
                        for x in 0..<kw {
                            let offset = depthwise ? (((o / 4) * kh + y) * kw + x) * 4 + o % 4 : ((o * kh + y) * kw + x) * paddedInputs + i
                            placed[offset] = oihw[((o * I + i) * kh + y) * kw + x]
                        }
                    }
                }
            }
            XCTAssertEqual(values, placed, "layer \(layer.index)")
            expectedCount += values.count
            XCTAssertEqual(blobs.tensor(layer: layer.index, role: .bias)?.floats(), try c.bias?.floats() ?? [Float](repeating: 0, count: O))
        }
        XCTAssertEqual(weightCount, expectedCount)
    }

    /// "Reading files from outside": a Keras model read in the `foldkit` executable's helper process is the
    /// model the in-process read returns.
    func testUntrustedKerasModelReadInTheHelper() throws {
        #if os(macOS)
            let foldkitExecutable = Bundle(for: Marker.self).bundleURL.deletingLastPathComponent().appendingPathComponent("foldkit")
        #else
            let foldkitExecutable = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("foldkit")
        #endif
        guard FileManager.default.isExecutableFile(atPath: foldkitExecutable.path) else {
            throw XCTSkip("no foldkit executable beside the tests (swift build --build-tests builds it)")
        }
        let kerasPath = TestData.fixture("keras/dag.keras").path

        // example: untrusted
        let helper = HDF5Helper(executable: foldkitExecutable)  // a `foldkit` built from this package
        let untrusted = try ModelLoader.load(paths: [kerasPath], hdf5Helper: helper)
        print("\(untrusted.layers.count) layers, read in a helper process")
        // end example

        let trusted = try ModelLoader.load(paths: [kerasPath])
        XCTAssertEqual(untrusted.layers.map(\.name), trusted.layers.map(\.name))
        XCTAssertEqual(untrusted.layers.map(\.outputShape), trusted.layers.map(\.outputShape))
        for (a, b) in zip(untrusted.layers, trusted.layers) {
            XCTAssertEqual(try a.kind.parameters.map { try $0.tensor.floats() }, try b.kind.parameters.map { try $0.tensor.floats() }, a.label)
        }
    }

    private final class Marker {}

    /// The code blocks of Docs/Library.md after `<!-- example: NAME -->`, without their import lines.
    private func pageExamples() throws -> [String: String] {
        let page = try String(contentsOf: TestData.repositoryRoot.appendingPathComponent("Docs/Library.md"), encoding: .utf8)
        var examples: [String: String] = [:]
        let lines = page.components(separatedBy: "\n")
        var index = 0
        while index < lines.count {
            let line = lines[index].trimmingCharacters(in: .whitespaces)
            index += 1
            guard line.hasPrefix("<!-- example: "), line.hasSuffix(" -->") else { continue }
            let name = String(line.dropFirst("<!-- example: ".count).dropLast(" -->".count))
            guard index < lines.count, lines[index] == "```swift" else { XCTFail("example \(name): no ```swift block after the marker"); continue }
            index += 1
            var body: [String] = []
            while index < lines.count, lines[index] != "```" { body.append(lines[index]); index += 1 }
            examples[name] = body.filter { !$0.hasPrefix("import ") }.joined(separator: "\n").trimmingCharacters(in: .newlines)
        }
        return examples
    }

    /// The code between `// example: NAME` and `// end example` in this file, indentation removed.
    private func testedExamples() throws -> [String: String] {
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        var examples: [String: String] = [:]
        var name: String?
        var body: [String] = []
        for line in source.components(separatedBy: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("// example: ") {
                name = String(trimmed.dropFirst("// example: ".count))
                body = []
            } else if trimmed == "// end example", let current = name {
                let indent =
                    body.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
                    .map { $0.prefix { $0 == " " }.count }.min() ?? 0
                examples[current] = body.map { String($0.dropFirst(min(indent, $0.prefix { $0 == " " }.count))) }
                    .joined(separator: "\n").trimmingCharacters(in: .newlines)
                name = nil
            } else if name != nil {
                body.append(line)
            }
        }
        return examples
    }

    func testLibraryPageShowsTheTestedCode() throws {
        let page = try pageExamples(), tested = try testedExamples()
        XCTAssertEqual(
            Set(page.keys),
            ["load", "untrusted", "fold", "writeBlobs", "verify", "fixtures", "exportONNX", "exportNCNN", "engineVerdict", "loader", "threads"])
        XCTAssertEqual(Set(page.keys), Set(tested.keys))
        for (name, code) in page {
            XCTAssertEqual(code, tested[name], "Docs/Library.md example \(name) differs from LibraryExamplesTests")
        }
        // The page's imports are this file's.
        let pageText = try String(contentsOf: TestData.repositoryRoot.appendingPathComponent("Docs/Library.md"), encoding: .utf8)
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        for line in pageText.components(separatedBy: "\n") where line.hasPrefix("import ") {
            XCTAssertTrue(source.contains("\n\(line)\n") || source.hasPrefix("\(line)\n"), line)
        }
    }
}

/// OpenBLAS's thread count, read and restored around the example that applies `ProcessTuning` (nil and
/// nothing set where the BLAS is not OpenBLAS).
private enum BLASThreadCount {
    static var current: Int32? {
        get {
            #if canImport(CBLAS)
                return openblas_get_num_threads()
            #else
                return nil
            #endif
        }
        set {
            #if canImport(CBLAS)
                if let newValue { openblas_set_num_threads(newValue) }
            #endif
        }
    }
}
