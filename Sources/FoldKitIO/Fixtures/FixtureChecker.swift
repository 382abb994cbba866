import FoldKitBlobFormat
import FoldKitCore
import FoldKitRuntime
import Foundation

/// `foldkit fixtures --check DIR`: recomputes a fixture pack from the model and reports any drift.
///
/// The input is taken from the pack's own `input.npy` (so seeded and user-given inputs both work), the
/// network is run again exactly as `FixtureWriter` does, and every stored tensor is compared: identical
/// bytes, or the largest deviation relative to the tensor's max |stored value|.
public enum FixtureChecker {
    /// How far one stored tensor is from a fresh computation.
    public struct TensorDrift: Codable, Equatable, Sendable {
        /// The .npy file.
        public var file: String
        /// Every value bit-identical.
        public var identical: Bool
        /// The largest |stored - recomputed|.
        public var maxAbsDeviation: Double
        /// maxAbsDeviation / max |stored|
        public var relativeDeviation: Double
        /// What is wrong beyond values (missing or unreadable, another shape, not in the manifest), if anything.
        public var problem: String?
    }

    /// The result of `check`: every tensor's drift and the verdict.
    public struct Report: Codable, Equatable, Sendable {
        /// The fixture folder checked.
        public var folder: String
        /// One entry per manifest tensor.
        public var tensors: [TensorDrift]
        /// The allowed deviation as a fraction of each tensor's max |value|.
        public var relativeTolerance: Double
        /// Every tensor within tolerance and without problems.
        public var pass: Bool

        /// The report as lines for a terminal.
        public func text() -> String {
            var lines = ["checked \(tensors.count) tensors in \(folder): \(tensors.filter(\.identical).count) byte-identical"]
            for t in tensors where !t.identical {
                lines.append(
                    String(
                        format: "  %@: max deviation %.3e (relative %.3e)%@", t.file, t.maxAbsDeviation, t.relativeDeviation,
                        t.problem.map { " - \($0)" } ?? ""))
            }
            lines.append(pass ? "PASS: no drift beyond relative \(relativeTolerance)" : "FAIL: drift beyond relative \(relativeTolerance)")
            return lines.joined(separator: "\n")
        }
    }

    /// Recomputes every tensor of the fixture folder `folder` from `network` and compares it with the
    /// stored one: each `.npy` and, when the manifest lists them (`--onnx`), each `test_data_set_0/*.pb`
    /// (its dims, FLOAT data type, name and raw_data). A pack of chosen layers (`layers` in the manifest)
    /// is recomputed up to its last layer and compared on those layers. Throws `FoldKitError` when manifest.json is missing or unreadable.
    public static func check(
        folder: URL, network: Network, relativeTolerance: Double = 1e-6, productThreading: ProductThreading = .library
    ) throws -> Report {
        let (manifest, layout, manifestURL) = try readManifest(in: folder)
        // The layers the pack holds: `layers.written` (version 2), or every layer (version 1).
        let chosen = try chosenLayers(manifest, network: network, manifestURL: manifestURL)
        let positions = Set(chosen.map { $0 + 1 }).union([0])
        let expectedCount = 1 + chosen.count + chosen.filter { DarknetLayerOutput.differs(network.layers[$0]) }.count
        guard manifest.tensors.count == expectedCount else {
            throw FoldKitError(
                .badInput, "the pack does not match this model", file: manifestURL.path,
                expected: "\(expectedCount) tensors", found: "\(manifest.tensors.count)")
        }
        let onnxEntries = manifest.onnx ?? []
        let onnxByNPY = Dictionary(grouping: onnxEntries, by: \.npy)
        let storedInput = try NPYFile.read(path: folder.appendingPathComponent("input.npy").path)
        let input = ModelInput(values: unarrange(storedInput.values, shape: network.inputShape, layout: layout), origin: manifest.input)
        let vectors = FixtureWriter.vectorLayers(network)
        var drifts: [TensorDrift] = []
        var onnxChecked = Set<String>()
        // Each recomputed tensor is compared as soon as it is computed (`FixtureWriter.forEachTensor`).
        var next = 0
        let last = chosen.last.map { $0 + 1 } ?? 0
        try FixtureWriter.forEachTensor(network: network, input: input, productThreading: productThreading, through: last) { position, values in
            guard positions.contains(position) else { return }
            for fresh in FixtureWriter.stored(network: network, position: position, values: values, layout: layout, vectors: vectors) {
                let entry = manifest.tensors[next]
                next += 1
                guard entry.file == fresh.fileName else {
                    drifts.append(
                        TensorDrift(
                            file: entry.file, identical: false, maxAbsDeviation: .infinity, relativeDeviation: .infinity,
                            problem: "the manifest lists \(entry.file) where this model's pack has \(fresh.fileName)"))
                    continue
                }
                drifts.append(compare(fresh: fresh, file: entry.file, stored: readNPY(folder.appendingPathComponent(entry.file))))
                for proto in onnxByNPY[fresh.fileName] ?? [] {
                    onnxChecked.insert(proto.file)
                    drifts.append(
                        compare(fresh: fresh, file: proto.file, stored: readONNX(folder.appendingPathComponent(proto.file), expectedName: fresh.name))
                    )
                }
            }
        }
        for entry in onnxEntries where !onnxChecked.contains(entry.file) {
            drifts.append(
                TensorDrift(
                    file: entry.file, identical: false, maxAbsDeviation: .infinity, relativeDeviation: .infinity,
                    problem: "matches \(entry.npy), which this model's pack does not have"))
        }
        drifts += unlistedFiles(in: folder, listed: Set(manifest.tensors.map(\.file)).union(onnxEntries.map(\.file)))
        let pass = drifts.allSatisfy { $0.identical || $0.relativeDeviation <= relativeTolerance }
        return Report(folder: folder.path, tensors: drifts, relativeTolerance: relativeTolerance, pass: pass)
    }

    /// The pack's manifest and layout, and the manifest's URL; every file it names must be a plain name in
    /// the pack (onnx tensors: `onnx/<plain name>`), refused before anything is read (Docs/Security.md, "Name
    /// sanitising").
    private static func readManifest(in folder: URL) throws -> (FixtureManifest, FixtureLayout, URL) {
        let manifestURL = folder.appendingPathComponent("manifest.json")
        guard let data = FileManager.default.contents(atPath: manifestURL.path) else {
            throw FoldKitError(.io, "no manifest.json in the fixture folder", file: manifestURL.path)
        }
        let manifest: FixtureManifest
        do { manifest = try JSONDecoder().decode(FixtureManifest.self, from: data) } catch DecodingError.dataCorrupted(let context)
            where context.codingPath.last?.stringValue == "layout" || context.codingPath.last?.stringValue == "dtype"
        {
            let key = context.codingPath.last?.stringValue ?? ""
            let known = key == "layout" ? FixtureLayout.allCases.map(\.rawValue) : [BlobDType.float32.rawValue]
            throw FoldKitError(
                .badInput, "unknown fixture \(key) at \(context.codingPath.map(\.stringValue).joined(separator: "."))",
                file: manifestURL.path, expected: known.joined(separator: ", "), found: Self.foundValue(in: data, at: context.codingPath))
        } catch {
            throw FoldKitError(.badInput, "manifest.json is not a FoldKit fixture manifest: \(error)", file: manifestURL.path)
        }
        let layout = manifest.layout
        for entry in manifest.tensors where entry.dtype != .float32 {
            throw FoldKitError(
                .badInput, "fixture tensors are float32", file: manifestURL.path, layer: entry.name, expected: BlobDType.float32.rawValue,
                found: entry.dtype.rawValue)
        }
        for entry in manifest.tensors where !SafeFileName.isPlain(entry.file) {
            throw FoldKitError(
                .badInput, "manifest names a file outside the pack", file: manifestURL.path, expected: "a plain file name",
                found: entry.file)
        }
        for entry in manifest.onnx ?? [] where !isONNXPath(entry.file) {
            throw FoldKitError(
                .badInput, "manifest names a file outside the pack", file: manifestURL.path,
                expected: "\(ONNXTensorFile.folder)/<plain file name>", found: entry.file)
        }
        return (manifest, layout, manifestURL)
    }

    /// A tensor file (`.npy`, `onnx/*.pb`) in the pack that the manifest does not list is not part of what
    /// was recorded: each is reported as a drift.
    private static func unlistedFiles(in folder: URL, listed: Set<String>) -> [TensorDrift] {
        let present = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".npy") }
        let presentONNX = ((try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(ONNXTensorFile.folder).path)) ?? [])
            .filter { $0.hasSuffix(".pb") }.map(ONNXTensorFile.path)
        return (present + presentONNX).sorted().filter { !listed.contains($0) }.map { file in
            TensorDrift(
                file: file, identical: false, maxAbsDeviation: .infinity, relativeDeviation: .infinity, problem: "not listed in manifest.json")
        }
    }

    /// The indices of the layers the pack holds, ascending: `layers.written` resolved against `network`,
    /// or every layer for a version 1 manifest (which has no `layers`).
    private static func chosenLayers(_ manifest: FixtureManifest, network: Network, manifestURL: URL) throws -> [Int] {
        guard let layers = manifest.layers else { return Array(network.layers.indices) }
        var chosen: [Int] = []
        for id in layers.written {
            let index: Int?
            switch (id, network.layerIdentity) {
            case (.index(let i), .index): index = network.layers.indices.contains(i) ? i : nil
            case (.name(let n), .name): index = network.layers.first { $0.name == n }?.index
            default: index = nil
            }
            guard let index, chosen.last.map({ $0 < index }) ?? true else {
                throw FoldKitError(
                    .badInput, "the pack does not match this model", file: manifestURL.path,
                    expected: "layers of this model in network order", found: "layer \(id)")
            }
            chosen.append(index)
        }
        return chosen
    }

    /// Whether `file` is `test_data_set_0/<plain name>`.
    /// The JSON value at `path` in `data` as text, for an error naming what was found ("?" when it cannot be
    /// read back).
    private static func foundValue(in data: Data, at path: [CodingKey]) -> String {
        var value: Any? = try? JSONSerialization.jsonObject(with: data)
        for key in path {
            if let index = key.intValue, let array = value as? [Any] {
                value = index < array.count ? array[index] : nil
            } else {
                value = (value as? [String: Any])?[key.stringValue]
            }
        }
        return value.map { "\($0)" } ?? "?"
    }

    private static func isONNXPath(_ file: String) -> Bool {
        let prefix = ONNXTensorFile.folder + "/"
        return file.hasPrefix(prefix) && SafeFileName.isPlain(String(file.dropFirst(prefix.count)))
    }

    /// A stored array, or why it cannot be compared.
    private typealias Stored = Result<(shape: [Int], values: [Float]), StoredProblem>

    /// Why a stored file cannot be compared.
    private struct StoredProblem: Error { var text: String }

    private static func readNPY(_ url: URL) -> Stored {
        guard let stored = try? NPYFile.read(path: url.path) else { return .failure(StoredProblem(text: "missing or unreadable")) }
        return .success(stored)
    }

    /// A .pb file's array, when it is a FLOAT TensorProto named `expectedName` whose raw_data fits its dims.
    private static func readONNX(_ url: URL, expectedName: String) -> Stored {
        guard let data = FileManager.default.contents(atPath: url.path) else { return .failure(StoredProblem(text: "missing or unreadable")) }
        guard let decoded = try? ONNXTensorFile.decode(data, file: url.path) else {
            return .failure(StoredProblem(text: "not an onnx TensorProto"))
        }
        guard decoded.name == expectedName else { return .failure(StoredProblem(text: "name '\(decoded.name)', expected '\(expectedName)'")) }
        guard let values = decoded.values else {
            return .failure(
                StoredProblem(text: "data_type \(decoded.dataType) with \(decoded.raw.count) raw bytes for dims \(decoded.shape), expected FLOAT (1)")
            )
        }
        return .success((decoded.shape, values))
    }

    /// One stored tensor against its recomputation.
    private static func compare(fresh: FixtureWriter.StoredTensor, file: String, stored result: Stored) -> TensorDrift {
        let stored: (shape: [Int], values: [Float])
        switch result {
        case .success(let s): stored = s
        case .failure(let problem):
            return TensorDrift(file: file, identical: false, maxAbsDeviation: .infinity, relativeDeviation: .infinity, problem: problem.text)
        }
        guard fresh.shape == stored.shape else {
            return TensorDrift(
                file: file, identical: false, maxAbsDeviation: .infinity, relativeDeviation: .infinity,
                problem: "shape \(stored.shape), recomputed \(fresh.shape)")
        }
        var maxDev = 0.0, maxRef = 0.0
        for (a, b) in zip(fresh.values, stored.values) {
            maxDev = max(maxDev, a.isNaN != b.isNaN ? .infinity : (a.isNaN ? 0 : Double(abs(a - b))))
            maxRef = max(maxRef, Double(abs(b)))
        }
        let identical =
            fresh.values.count == stored.values.count && zip(fresh.values, stored.values).allSatisfy { $0.bitPattern == $1.bitPattern }
        return TensorDrift(
            file: file, identical: identical, maxAbsDeviation: maxDev, relativeDeviation: maxRef > 0 ? maxDev / maxRef : maxDev, problem: nil)
    }

    /// Undoes `FixtureWriter.arrange`.
    static func unarrange(_ values: [Float], shape: ActivationShape, layout: FixtureLayout) -> [Float] {
        switch layout {
        case .nchw: return values
        case .nhwc: return TensorLayout.hwcToCHW(values, shape: shape)
        case .sliced: return TensorLayout.slicedToCHW(values, shape: shape)
        }
    }
}
