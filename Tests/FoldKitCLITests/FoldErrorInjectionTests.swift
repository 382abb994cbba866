import FoldKitDarknet
import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit

/// Fold errors injected into the blobs `convert` writes (manifest checksums updated, as a buggy converter
/// would write them), then `verify --blobs`: every one must exit 2 naming the layer, in float32 and with
/// --fp16, and in float16 blobs (`convert --dtype float16`, judged in float16 storage). Each run prints an `INJECTED` line (model, error, mode, layer, relative deviation, max dev /
/// allowed) for the table in Docs/Verify.md.
final class FoldErrorInjectionTests: XCTestCase {
    /// A converted model: its files, the blob folder and the layer injected into.
    struct Subject {
        var name: String
        var model: [String]
        var verifyOptions: [String]
        var blobs: URL
        /// A layer with a folded batch norm and 3x3 kernels, its weight and bias tensors.
        var layer: Int
        var weights: String
        var bias: String
        /// The blobs' dtype: "float32" or "float16".
        var dtype: String
    }

    enum Injection: String, CaseIterable {
        case epsilon1e3 = "epsilon 1e-3 instead of 1e-5"
        case epsilonOutside = "epsilon outside the root"
        case biasDropped = "bias dropped"
        case transposed3x3 = "3x3 kernels transposed"
        case gammaBetaSwapped = "gamma and beta swapped"
        case channelOnePercent = "one channel's scale 1% off"
        case float16Overflow = "one bias 1e5 (float16 overflow)"
    }

    // MARK: - The family

    func testRealDarknetModel() throws {
        let stem = "real-models/yolo-fastest-1.1/yolo-fastest-1.1"
        let model = [try TestData.sharedFile(stem + ".cfg").path, try TestData.sharedFile(stem + ".weights").path]
        try runFamily(name: "yolo-fastest-1.1", model: model, verifyOptions: ["--height", "128", "--width", "128"], epsilonOverride: "1e-3")
    }

    func testRealKerasModel() throws {
        let model = [try TestData.sharedFile("real-models/keras_fer2013_mini_XCEPTION/fer2013_mini_XCEPTION.102-0.66.hdf5").path]
        // Keras keeps its own epsilon (1e-3) per layer: the wrong one is 1e-5.
        try runFamily(name: "fer2013_mini_XCEPTION (Keras)", model: model, verifyOptions: [], epsilonOverride: "1e-5")
    }

    func testSeededFixtureModels() throws {
        for cfg in ["conv-basic.cfg", "shortcut-upsample.cfg"] {
            let directory = try TestData.temporaryDirectory()
            addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
            let weights = directory.appendingPathComponent("wide.weights").path
            // `wide`: batch-norm variances down to 1e-8, where the epsilon decides the fold.
            try DarknetSeededWeights.write(cfgPath: TestData.fixture("darknet/cfg/\(cfg)").path, seed: 1, generator: .wide, to: weights)
            try runFamily(
                name: "\(cfg) (wide, seed 1)", model: [TestData.fixture("darknet/cfg/\(cfg)").path, weights], verifyOptions: [],
                epsilonOverride: "1e-3")
        }
    }

    /// The clean conversion passes in both modes; every injection fails in both, naming the layer.
    private func runFamily(name: String, model: [String], verifyOptions: [String], epsilonOverride: String) throws {
        try runFamily(name: name, model: model, verifyOptions: verifyOptions, epsilonOverride: epsilonOverride, dtype: "float32")
        try runFamily(name: name, model: model, verifyOptions: verifyOptions, epsilonOverride: epsilonOverride, dtype: "float16")
    }

    /// `runFamily` for blobs of `dtype`: float32 blobs are verified in float32 and with --fp16, float16 blobs
    /// once (the fold judged in float32, the blob values checked against it, the float16-storage pass run
    /// on the blob values).
    private func runFamily(name: String, model: [String], verifyOptions: [String], epsilonOverride: String, dtype: String) throws {
        let name = dtype == "float32" ? name : "\(name) [float16 blobs]"
        let modes: [[String]] = dtype == "float32" ? [[], ["--fp16"]] : [[]]
        let clean = try convert(name: name, model: model, verifyOptions: verifyOptions, extra: ["--dtype", dtype])
        if dtype == "float16" {
            let float32 = try convert(name: name, model: model, verifyOptions: verifyOptions, extra: ["--dtype", "float32"])
            XCTAssertEqual(try blobBytes(clean.blobs) * 2, try blobBytes(float32.blobs), "\(name): float16 blobs are half the size")
        }
        for mode in modes {
            let result = try CommandRunner.run(["verify"] + model + ["--blobs", clean.blobs.path] + verifyOptions + mode)
            XCTAssertEqual(result.status, 0, "\(name) clean \(mode): " + result.stdout.suffix(3000) + result.stderr)
        }
        for injection in Injection.allCases {
            var subject = try convert(
                name: name, model: model, verifyOptions: verifyOptions,
                extra: {
                    switch injection {
                    case .epsilon1e3: return ["--bn-epsilon", epsilonOverride]
                    case .epsilonOutside: return ["--bn-epsilon-mode", "outside"]
                    default: return []
                    }
                }() + ["--dtype", dtype])
            try inject(injection, into: &subject)
            for mode in modes {
                let json = subject.blobs.appendingPathComponent("report\(mode.count).json")
                let result = try CommandRunner.run(["verify"] + model + ["--blobs", subject.blobs.path, "--json", json.path] + verifyOptions + mode)
                let label = "\(name), \(injection.rawValue), \(mode.isEmpty ? dtype : "--fp16")"
                XCTAssertEqual(result.status, 2, label + ": " + result.stdout.suffix(3000) + result.stderr)
                let report = try JSONSerialization.jsonObject(with: Data(contentsOf: json)) as? [String: Any] ?? [:]
                if dtype == "float16" {
                    // The fold is judged in float32 (it is right: the error is in the blobs), the blob values
                    // against it rounded to float16: the injected tensors are named, nothing else.
                    let problems = report["blobProblems"] as? [[String: Any]] ?? []
                    let named = Set(problems.compactMap { $0["tensor"] as? String })
                    XCTAssertFalse(named.isEmpty, label + ": no blob value found off the fold")
                    if ![.epsilon1e3, .epsilonOutside].contains(injection) {
                        XCTAssertTrue(named.isSubset(of: [subject.weights, subject.bias]), label + ": \(named)")
                        XCTAssertTrue(
                            problems.allSatisfy { ($0["problem"] as? String ?? "").hasPrefix("layer \(subject.layer) ") }, label + ": \(problems)")
                    }
                    XCTAssertTrue(result.stdout.contains(problems.first?["tensor"] as? String ?? "?"), label)
                    print(
                        "INJECTED | \(name) | \(injection.rawValue) | float16 blobs | \(named.count) blobs off the fold, first \(named.sorted().prefix(3).joined(separator: ", ")) | exact check |"
                    )
                    continue
                }
                XCTAssertFalse(result.stdout.contains("blob problem"), label + ": the checksums were updated, the layers must fail")
                let first = try XCTUnwrap(report["firstLayerOverTolerance"] as? [String: Any], label)
                let index = try XCTUnwrap(first["index"] as? Int)
                XCTAssertEqual(first["precision"] as? String, "float32", label + ": the fold is judged in float32 in both modes")
                XCTAssertTrue(result.stdout.contains("first: layer \(index) "), label)
                if ![.epsilon1e3, .epsilonOutside].contains(injection) {
                    XCTAssertEqual(index, subject.layer, label + ": caught where it was injected")
                }
                // The deviation at the failing layer, for Docs/Verify.md.
                let precisions = report["precisions"] as? [[String: Any]] ?? []
                let layers = precisions.first?["layers"] as? [[String: Any]] ?? []
                if index < layers.count, let candidate = layers[index]["candidate"] as? [String: Any],
                    let relative = candidate["relativeDeviation"] as? Double, let dev = candidate["maxAbsDeviation"] as? Double,
                    let allowed = layers[index]["allowed"] as? Double
                {
                    print(
                        String(
                            format: "INJECTED | %@ | %@ | %@ | %d | %.3g | %.3g |", name, injection.rawValue, mode.isEmpty ? dtype : "--fp16",
                            index, relative, dev / allowed))
                }
            }
        }
    }

    // MARK: - Converting and injecting

    private func convert(name: String, model: [String], verifyOptions: [String], extra: [String] = []) throws -> Subject {
        let directory = try TestData.temporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
        let blobs = directory.appendingPathComponent("blobs")
        let result = try CommandRunner.run(["convert"] + model + ["--out", blobs.path, "--layout", "oihw"] + extra)
        XCTAssertEqual(result.status, 0, result.stderr)
        let manifest = try Manifest(folder: blobs)
        let dtype = extra.firstIndex(of: "--dtype").map { extra[$0 + 1] } ?? "float32"
        // The first layer from index 2 on with a folded batch norm and 3x3 kernels (else the first with 3x3).
        let candidates = manifest.layers.filter { ($0["foldedBatchNorm"] as? Bool) == true && ($0["kernel"] as? [Int]) == [3, 3] }
        let layer = try XCTUnwrap(candidates.first { ($0["index"] as? Int ?? 0) >= 2 } ?? candidates.first, "\(name): no 3x3 layer with batch norm")
        let index = try XCTUnwrap(layer["index"] as? Int)
        let tensors = manifest.tensors.filter { ($0["layer"] as? Int) == index }
        let weights = try XCTUnwrap(tensors.first { ($0["role"] as? String) == "weights" }?["name"] as? String)
        let bias = try XCTUnwrap(tensors.first { ($0["role"] as? String) == "bias" }?["name"] as? String)
        XCTAssertTrue(manifest.tensors.allSatisfy { ($0["dtype"] as? String) == dtype }, "\(name): every blob is \(dtype)")
        return Subject(
            name: name, model: model, verifyOptions: verifyOptions, blobs: blobs, layer: index, weights: weights, bias: bias, dtype: dtype)
    }

    /// The bytes of every blob file of a folder.
    private func blobBytes(_ folder: URL) throws -> Int {
        try Manifest(folder: folder).tensors.reduce(0) { sum, tensor in
            let file = folder.appendingPathComponent(tensor["file"] as? String ?? "")
            return sum + (try FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int ?? 0)
        }
    }

    private func inject(_ injection: Injection, into subject: inout Subject) throws {
        var manifest = try Manifest(folder: subject.blobs)
        var (w, wShape) = try manifest.read(subject.weights)
        var (b, _) = try manifest.read(subject.bias)
        let outputs = wShape[0], per = w.count / outputs
        switch injection {
        case .epsilon1e3, .epsilonOutside:
            return
        case .biasDropped:
            b = b.map { _ in 0 }
        case .transposed3x3:
            // OIHW: each 3x3 kernel w[o, i, y, x] becomes w[o, i, x, y].
            let original = w
            for kernel in 0..<(w.count / 9) {
                for y in 0..<3 { for x in 0..<3 { w[kernel * 9 + y * 3 + x] = original[kernel * 9 + x * 3 + y] } }
            }
        case .channelOnePercent:
            for k in 0..<per { w[k] *= 1.01 }
            b[0] *= 1.01
        case .float16Overflow:
            // A bias reaches every output of its channel (a weight may meet only zeros on this input).
            b[0] = 1e5
        case .gammaBetaSwapped:
            // Refold the layer from the original parameters with gamma and beta exchanged.
            let network = try ModelLoader.load(paths: subject.model)
            guard case .convolution(let c) = network.layers[subject.layer].kind, let bn = c.batchNorm else {
                throw FixtureProblem(
                    subject.name,
                    "the manifest marks layer \(subject.layer) as a folded 3x3 convolution, but the model "
                        + "read from \(subject.model) has no convolution with batch norm there (\(network.layers[subject.layer].kind.typeName))")
            }
            let gamma = try bn.gamma?.floats() ?? [Float](repeating: 1, count: outputs)
            let beta = try bn.beta?.floats() ?? [Float](repeating: 0, count: outputs)
            let mean = try bn.mean.floats(), variance = try bn.variance.floats()
            let raw = try c.weights.floats(), rawBias = try c.bias?.floats() ?? [Float](repeating: 0, count: outputs)
            guard c.weights.shape == wShape || raw.count == w.count else {
                throw FixtureProblem(
                    subject.name,
                    "layer \(subject.layer)'s weights have shape \(c.weights.shape) (\(raw.count) values) in the model "
                        + "but \(wShape) (\(w.count) values) in the OIHW blob \(subject.weights)")
            }
            for o in 0..<outputs {
                let s = network.epsilonConvention.scale(gamma: Double(beta[o]), variance: Double(variance[o]))
                for k in 0..<per { w[o * per + k] = Float(Double(raw[o * per + k]) * s) }
                b[o] = Float(Double(gamma[o]) - Double(mean[o]) * s + Double(rawBias[o]) * s)
            }
        }
        try manifest.write(subject.weights, w)
        try manifest.write(subject.bias, b)
        try manifest.save()
    }

    /// The blob folder's manifest.json, edited in place: tensors rewritten with their sha256 updated.
    struct Manifest {
        let folder: URL
        var json: [String: Any]

        init(folder: URL) throws {
            self.folder = folder
            json = try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("manifest.json"))) as? [String: Any] ?? [:]
        }

        var layers: [[String: Any]] { json["layers"] as? [[String: Any]] ?? [] }
        var tensors: [[String: Any]] { json["tensors"] as? [[String: Any]] ?? [] }

        private func entry(_ name: String) throws -> (index: Int, file: URL, shape: [Int], dtype: BlobDType) {
            let index = try XCTUnwrap(tensors.firstIndex { ($0["name"] as? String) == name }, name)
            let dtype = try XCTUnwrap(BlobDType(rawValue: tensors[index]["dtype"] as? String ?? ""), name)
            return (
                index, folder.appendingPathComponent(try XCTUnwrap(tensors[index]["file"] as? String)), tensors[index]["shape"] as? [Int] ?? [],
                dtype
            )
        }

        func read(_ name: String) throws -> ([Float], [Int]) {
            let e = try entry(name)
            return (BlobValues.floats(try Data(contentsOf: e.file), dtype: e.dtype), e.shape)
        }

        /// Writes `values` in the blob's dtype (float16: Swift's `Float16` rounding, as `convert` does).
        mutating func write(_ name: String, _ values: [Float]) throws {
            let e = try entry(name)
            var data = Data(capacity: values.count * e.dtype.size)
            for v in values {
                switch e.dtype {
                case .float32: withUnsafeBytes(of: v.bitPattern.littleEndian) { data.append(contentsOf: $0) }
                case .float16: withUnsafeBytes(of: HalfConversion.bits(v).littleEndian) { data.append(contentsOf: $0) }
                }
            }
            try data.write(to: e.file)
            var all = tensors
            all[e.index]["sha256"] = Checksum.sha256Hex(data)
            json["tensors"] = all
        }

        func save() throws {
            try JSONSerialization.data(withJSONObject: json, options: [.prettyPrinted, .sortedKeys]).write(
                to: folder.appendingPathComponent("manifest.json"))
        }
    }
}
