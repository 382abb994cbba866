import FoldKitTestSupport
import XCTest
import ZIPFoundation

@testable import FoldKitCore
@testable import FoldKitKeras

/// GroupNormalization as the reader takes it (Fixtures/keras/group_normalization.*): the groups, epsilons
/// and tensors in every file kind, groups -1 as one group per channel, and the axes and group counts it
/// refuses, from edited copies of the `.keras` archive's config.json.
final class KerasGroupNormalizationTests: XCTestCase {
    /// groups=4 with gamma and beta, and groups=-1 (saved as 4) with beta only.
    func testGroupsEpsilonsAndTensorsInEveryFileKind() throws {
        for file in ["group_normalization.keras", "group_normalization.keras3.h5", "group_normalization.tfkeras.h5"] {
            let net = try KerasReader.read(paths: [TestData.fixture("keras/\(file)").path])
            let normalizations = groupNormalizations(net)
            XCTAssertEqual(normalizations.map(\.name), ["gn", "gn_beta"], file)
            XCTAssertEqual(normalizations.map(\.normalization.groups), [4, 4], file)
            XCTAssertEqual(normalizations.map(\.normalization.epsilon), [1e-3, 1e-5], file)
            XCTAssertEqual(normalizations.map { $0.normalization.gamma?.count }, [8, nil], file)
            XCTAssertEqual(normalizations.map { $0.normalization.beta?.count }, [8, 4], file)
            XCTAssertEqual(net.layers.first { $0.name == "gn" }?.kind.typeName, "groupnorm", file)
        }
    }

    func testGroupsMinusOneIsOneGroupPerChannel() throws {
        let net = try readEdited(layer: "gn") { $0["groups"] = -1 }
        XCTAssertEqual(groupNormalizations(net).map(\.normalization.groups), [8, 4])
    }

    func testAnAxisOtherThanTheChannelsIsRefusedByName() throws {
        for axis in [1, 2, -2] {
            XCTAssertThrowsError(try readEdited(layer: "gn") { $0["axis"] = axis }) { error in
                let e = error as? FoldKitError
                XCTAssertEqual(e?.kind, .unsupported, "\(error)")
                XCTAssertEqual(e?.layer, "gn (GroupNormalization)")
                XCTAssertEqual(e?.message, "group normalization axis must be the channel axis", "\(error)")
                XCTAssertEqual(e?.found, "\(axis)")
            }
        }
    }

    func testGroupsThatDoNotDivideTheChannelsAreRefused() throws {
        XCTAssertThrowsError(try readEdited(layer: "gn") { $0["groups"] = 3 }) { error in
            let e = error as? FoldKitError
            XCTAssertEqual(e?.kind, .badInput, "\(error)")
            XCTAssertEqual(e?.layer, "gn (GroupNormalization)")
            XCTAssertEqual(e?.expected, "a divisor of 8")
            XCTAssertEqual(e?.found, "3")
        }
    }

    private func groupNormalizations(_ net: Network) -> [(name: String, normalization: GroupNormalization)] {
        net.layers.compactMap { layer in
            guard case .groupNormalization(let n) = layer.kind else { return nil }
            return (layer.name, n)
        }
    }

    /// group_normalization.keras with `edit` applied to the config of the layer named `name`.
    private func readEdited(layer name: String, _ edit: (inout [String: Any]) -> Void) throws -> Network {
        let source = try Archive(url: TestData.fixture("keras/group_normalization.keras"), accessMode: .read)
        let folder = try TestData.temporaryDirectory()
        addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        let edited = folder.appendingPathComponent("edited.keras")
        let archive = try Archive(url: edited, accessMode: .create)
        for entry in source {
            var data = Data()
            _ = try source.extract(entry) { data.append($0) }
            if entry.path == "config.json" {
                var json = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
                var model = try XCTUnwrap(json["config"] as? [String: Any])
                var layers = try XCTUnwrap(model["layers"] as? [[String: Any]])
                let index = try XCTUnwrap(layers.firstIndex { ($0["config"] as? [String: Any])?["name"] as? String == name })
                var config = try XCTUnwrap(layers[index]["config"] as? [String: Any])
                edit(&config)
                layers[index]["config"] = config
                model["layers"] = layers
                json["config"] = model
                data = try JSONSerialization.data(withJSONObject: json)
            }
            try archive.addEntry(with: entry.path, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .none) { position, size in
                data.subdata(in: Int(position)..<(Int(position) + size))
            }
        }
        return try KerasReader.read(paths: [edited.path])
    }
}
