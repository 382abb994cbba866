import FoldKitCore
import Foundation
import ZIPFoundation

/// A Keras 3 `.keras` archive: a zip holding `config.json` (the model description),
/// `model.weights.h5` (weights under `layers/<path>/vars/<i>`) and `metadata.json`
/// (`keras_version`, `date_saved`). Entries may be stored or deflated.
struct KerasArchive {
    var config: String
    var metadata: KerasJSON?
    /// model.weights.h5 extracted to a temporary file (libhdf5 opens files by path); removed by `cleanUp()`.
    var weightsPath: String
    private var temporaryFolder: URL
    /// Lets a SIGINT/SIGTERM handler remove the temporary folder (`PendingTemporaryItems`).
    private var registration: UUID?

    init(path: String) throws {
        let archive: Archive
        do {
            archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read)
        } catch {
            throw FoldKitError(.badInput, "not a readable zip archive (.keras): \(error)", file: path)
        }
        func entryData(_ name: String, required: Bool) throws -> Data? {
            guard let entry = archive[name] else {
                if required {
                    throw FoldKitError(.badInput, "archive has no '\(name)'", file: path,
                                       expected: "config.json, model.weights.h5, metadata.json",
                                       found: archive.map { $0.path }.joined(separator: ", "))
                }
                return nil
            }
            var data = Data()
            do {
                _ = try archive.extract(entry, consumer: { data.append($0) })
            } catch {
                throw FoldKitError(.badInput, "cannot extract '\(name)': \(error)", file: path)
            }
            return data
        }
        guard let configData = try entryData("config.json", required: true), let weights = try entryData("model.weights.h5", required: true) else {
            throw FoldKitError(.badInput, "archive is missing entries", file: path)
        }
        config = String(decoding: configData, as: UTF8.self)
        if let meta = try entryData("metadata.json", required: false) {
            metadata = try? KerasJSON.parse(String(decoding: meta, as: UTF8.self), file: "\(path)/metadata.json")
        }
        temporaryFolder = FileManager.default.temporaryDirectory.appendingPathComponent("foldkit-keras-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: temporaryFolder, withIntermediateDirectories: true)
            registration = PendingTemporaryItems.register(temporaryFolder)
            let url = temporaryFolder.appendingPathComponent("model.weights.h5")
            try weights.write(to: url)
            weightsPath = url.path
        } catch {
            throw FoldKitError(.io, "cannot write the extracted weights to a temporary file: \(error)", file: path)
        }
    }

    func cleanUp() {
        try? FileManager.default.removeItem(at: temporaryFolder)
        if let registration { PendingTemporaryItems.unregister(registration) }
    }
}
