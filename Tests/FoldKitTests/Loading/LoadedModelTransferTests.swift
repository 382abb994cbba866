import FoldKitTestSupport
import Foundation
import XCTest

@testable import FoldKit
@testable import FoldKitCore
@testable import FoldKitIO
@testable import FoldKitKeras

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The HDF5 helper's hand-over (`LoadedModelTransfer`): every network read from the Keras fixtures comes
/// back whole (every field of every layer, every value bit for bit), floats survive the JSON exactly, and
/// a hand-over that does not hold together is refused (thirteen ways).
final class LoadedModelTransferTests: XCTestCase {
    /// The stream `write` makes, through a file, as `receive` reads it from the helper's pipe.
    private func handOver(_ write: (Int32) throws -> Void, paths: [String]) throws -> LoadedModelTransfer.Received {
        let folder = try TestData.temporaryDirectory("foldkit-transfer")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("stream").path
        let out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        XCTAssertGreaterThanOrEqual(out, 0)
        try write(out)
        close(out)
        let input = open(path, O_RDONLY)
        defer { close(input) }
        return LoadedModelTransfer.receive(from: input, paths: paths, byteLimit: 1 << 30)
    }

    /// The network as canonical JSON with every tensor's values inline: equal JSON, equal networks.
    private func canonical(_ network: Network) throws -> Data {
        let encoder = LoadedModelTransfer.encoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(network.materialized())
    }

    func testEveryKerasFixtureComesBackWhole() throws {
        let fixtures = TestData.fixture("keras")
        let names = try FileManager.default.contentsOfDirectory(atPath: fixtures.path).filter { $0.hasSuffix(".h5") || $0.hasSuffix(".keras") }
        var read = 0
        for name in names.sorted() {
            let path = fixtures.appendingPathComponent(name).path
            guard let network = try? ModelLoader.load(paths: [path]) else { continue }  // weights-only files, refused models
            let declaration = try KerasReader.inputDeclaration(paths: [path])
            let received = try handOver(
                { try LoadedModelTransfer.write(.init(network: network, inputDeclaration: declaration), to: $0) }, paths: [path])
            guard case .model(let back) = received else { return XCTFail("\(name): \(received)") }
            XCTAssertEqual(try canonical(back.network), try canonical(network), name)
            XCTAssertEqual(back.inputDeclaration, declaration, name)
            for layer in back.network.layers {
                for (_, tensor) in layer.kind.parameters {
                    guard case .values = tensor.storage else { return XCTFail("\(name) \(layer.label): a tensor not in memory") }
                }
            }
            read += 1
        }
        XCTAssertGreaterThan(read, 90)
    }

    /// Foundation writes a float's shortest exact digits and reads them back with strtof/strtod.
    func testFloatsSurviveTheDescriptionBitForBit() throws {
        var rng = SplitMix64(seed: 35)
        var floats: [Float] = [0, -0.0, .leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude, 0.1, 1e-3, .infinity, -.infinity]
        var doubles: [Double] = [0, -0.0, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 0.1, 1e-5, .infinity]
        for _ in 0..<200_000 {
            let bits = UInt32(truncatingIfNeeded: rng.next())
            if Float(bitPattern: bits).isFinite { floats.append(Float(bitPattern: bits)) }
            let double = Double(bitPattern: rng.next())
            if double.isFinite { doubles.append(double) }
        }
        doubles = doubles.filter { !$0.isNaN }
        let backFloats = try LoadedModelTransfer.decoder().decode([Float].self, from: LoadedModelTransfer.encoder().encode(floats))
        XCTAssertEqual(backFloats.map(\.bitPattern), floats.map(\.bitPattern))
        let backDoubles = try LoadedModelTransfer.decoder().decode([Double].self, from: LoadedModelTransfer.encoder().encode(doubles))
        XCTAssertEqual(backDoubles.map(\.bitPattern), doubles.map(\.bitPattern))
        let nan = try LoadedModelTransfer.decoder().decode([Float].self, from: LoadedModelTransfer.encoder().encode([Float.nan]))
        XCTAssertTrue(nan[0].isNaN)
    }

    /// A hand-over changed after the helper wrote it is refused, naming the model files; a stream that is
    /// not a hand-over comes back as it was written.
    func testAHandOverThatDoesNotHoldTogetherIsRefused() throws {
        let path = TestData.fixture("keras/dag.keras3.h5").path
        let network = try ModelLoader.load(paths: [path])
        let (header, values) = try LoadedModelTransfer.header(.init(network: network))
        guard let convolution = header.network.layers.firstIndex(where: { !$0.kind.parameters.isEmpty }) else { return XCTFail("no weights") }

        func refused(_ label: String, values changedValues: [[Float]]? = nil, _ change: (inout LoadedModelTransfer.Header) -> Void) throws {
            var changed = header
            change(&changed)
            let received = try handOver({ try LoadedModelTransfer.write(changed, values: changedValues ?? values, to: $0) }, paths: [path])
            guard case .refused(let error) = received else { return XCTFail("\(label): \(received)") }
            XCTAssertTrue(error.message.contains("does not hold together"), "\(label): \(error)")
            XCTAssertEqual(error.file, path, label)
        }
        func mapTensors(_ header: inout LoadedModelTransfer.Header, _ transform: (WeightTensor) -> WeightTensor) {
            header.network.layers[convolution].kind = header.network.layers[convolution].kind.operation.mappingParameters { _, t in transform(t) }
        }
        try refused("span past the values") { h in
            mapTensors(&h) { t in
                WeightTensor(shape: t.shape, span: FileSpan(path: LoadedModelTransfer.valuesName, byteOffset: 1 << 40, count: t.count))
            }
        }
        try refused("span of another file") { h in
            mapTensors(&h) { t in WeightTensor(shape: t.shape, span: FileSpan(path: "/etc/passwd", byteOffset: 0, count: t.count)) }
        }
        try refused("values inline") { h in mapTensors(&h) { t in WeightTensor(shape: t.shape, values: [Float](repeating: 0, count: t.count)) } }
        try refused("shape and span disagree") { h in
            mapTensors(&h) { t in
                guard case .file(let span) = t.storage else { return t }
                return WeightTensor(shape: t.shape + [2], span: span)
            }
        }
        try refused("input from a later layer") { h in h.network.layers[0].inputs = [h.network.layers.count - 1] }
        try refused("output shape") { h in h.network.layers[convolution].outputShape.channels += 1 }
        try refused("another source file") { h in h.network.sourceFiles = ["/etc/passwd"] }
        try refused("format version") { h in h.version += 1 }
        try refused("more values than tensors hold") { h in h.valueCount += 1 }
        try refused("more values than the helper may hold") { h in h.valueCount = 1 << 40 }
        try refused("output index") { h in h.network.outputs = [h.network.layers.count] }
        try refused("values cut short", values: Array(values.dropLast())) { _ in }
        try refused("bytes after the values", values: values + [[1]]) { _ in }

        // Not a hand-over: the helper's error as JSON, or nothing.
        let error = try handOver({ out in _ = "{\"kind\":\"badInput\"}".withCString { write(out, $0, strlen($0)) } }, paths: [path])
        guard case .other(let data) = error else { return XCTFail("\(error)") }
        XCTAssertEqual(String(decoding: data, as: UTF8.self), "{\"kind\":\"badInput\"}")
        guard case .other(let nothing) = try handOver({ _ in }, paths: [path]) else { return XCTFail("an empty stream") }
        XCTAssertEqual(nothing, Data())
    }
}
