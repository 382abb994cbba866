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

    /// Largest entry FoldKit extracts: 4 GiB (a .keras holding more weights is beyond any model it runs).
    static let maximumEntryBytes: UInt64 = 4 << 30
    /// Largest expansion of a deflated entry: float weights deflate by less than 2x and JSON by about
    /// 10x, a zip bomb by 1000x; an entry may also always grow to `expansionAllowance` bytes.
    static let maximumExpansion: UInt64 = 100
    static let expansionAllowance: UInt64 = 1 << 20

    init(path: String) throws {
        let archive: Archive
        do {
            archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read)
        } catch {
            throw FoldKitError(.badInput, "not a readable zip archive (.keras): \(error)", file: path)
        }
        func entry(_ name: String, required: Bool) throws -> Entry? {
            guard let entry = archive[name] else {
                if required {
                    throw FoldKitError(
                        .badInput, "archive has no '\(name)'", file: path,
                        expected: "config.json, model.weights.h5, metadata.json",
                        found: archive.map { $0.path }.joined(separator: ", "))
                }
                return nil
            }
            try Self.checkDeclaredSize(of: entry, archive: path)
            return entry
        }
        /// Extracts `entry` into `consume`, stopping as soon as more bytes come out than its header declared.
        func extract(_ entry: Entry, _ consume: (Data) throws -> Void) throws {
            var produced: UInt64 = 0
            do {
                _ = try archive.extract(
                    entry,
                    consumer: { chunk in
                        produced += UInt64(chunk.count)
                        guard produced <= entry.uncompressedSize else { throw ExtractionOverrun() }
                        try consume(chunk)
                    })
            } catch is ExtractionOverrun {
                throw FoldKitError(
                    .badInput, "entry '\(entry.path)' expands beyond the size its header declares", file: path,
                    expected: "\(entry.uncompressedSize) bytes", found: "more")
            } catch let error as FoldKitError {
                throw error
            } catch {
                throw FoldKitError(.badInput, "cannot extract '\(entry.path)': \(error)", file: path)
            }
        }
        func entryData(_ name: String, required: Bool) throws -> Data? {
            guard let found = try entry(name, required: required) else { return nil }
            var data = Data()
            try extract(found) { data.append($0) }
            return data
        }
        guard let configData = try entryData("config.json", required: true), let weightsEntry = try entry("model.weights.h5", required: true) else {
            throw FoldKitError(.badInput, "archive is missing entries", file: path)
        }
        config = String(decoding: configData, as: UTF8.self)
        if let meta = try entryData("metadata.json", required: false) {
            metadata = try? KerasJSON.parse(String(decoding: meta, as: UTF8.self), file: "\(path)/metadata.json")
        }
        temporaryFolder = FileManager.default.temporaryDirectory.appendingPathComponent("foldkit-keras-\(UUID().uuidString)")
        let url = temporaryFolder.appendingPathComponent("model.weights.h5")
        let output: FileHandle
        // Registered before it exists, so a SIGINT/SIGTERM at any point finds and removes it.
        registration = PendingTemporaryItems.register(temporaryFolder)
        do {
            try FileManager.default.createDirectory(at: temporaryFolder, withIntermediateDirectories: true)
            guard FileManager.default.createFile(atPath: url.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
            output = try FileHandle(forWritingTo: url)
        } catch {
            try? FileManager.default.removeItem(at: temporaryFolder)
            if let registration { PendingTemporaryItems.unregister(registration) }
            throw FoldKitError(.io, "cannot write the extracted weights to a temporary file: \(error)", file: path)
        }
        weightsPath = url.path
        // The weights go to disk chunk by chunk, so memory stays bounded by the extraction buffer.
        do {
            defer { try? output.close() }
            try extract(weightsEntry) { chunk in
                do { try output.write(contentsOf: chunk) } catch {
                    throw FoldKitError(.io, "cannot write the extracted weights to a temporary file: \(error)", file: path)
                }
            }
        } catch {
            cleanUp()
            throw error
        }
    }

    /// Refuses an entry whose header declares more than `maximumEntryBytes`, or an expansion no model
    /// file has: uncompressed > maximumExpansion * compressed + expansionAllowance. Checked before anything is extracted.
    static func checkDeclaredSize(of entry: Entry, archive path: String) throws {
        let declared = entry.uncompressedSize
        let bound = min(maximumEntryBytes, entry.compressedSize.multipliedReportingOverflow(by: maximumExpansion).partialValue + expansionAllowance)
        guard declared <= bound else {
            throw FoldKitError(
                .badInput,
                "entry '\(entry.path)' declares \(declared) bytes from \(entry.compressedSize) compressed (a zip bomb or a broken archive)",
                file: path,
                expected: "at most \(bound) bytes (\(maximumExpansion)x the compressed size + 1 MiB, at most 4 GiB)",
                found: "\(declared) bytes")
        }
    }

    /// Thrown inside ZIPFoundation's consumer when an entry outgrows its declared size.
    private struct ExtractionOverrun: Error {}

    func cleanUp() {
        try? FileManager.default.removeItem(at: temporaryFolder)
        if let registration { PendingTemporaryItems.unregister(registration) }
    }
}
