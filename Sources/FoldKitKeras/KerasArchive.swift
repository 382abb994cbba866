import FoldKitCore
import Foundation
import ZIPFoundation

/// A Keras 3 `.keras` archive: a zip holding `config.json` (the model description),
/// `model.weights.h5` (weights under `layers/<path>/vars/<i>`) and `metadata.json`
/// (`keras_version`, `date_saved`). Entries may be stored or deflated.
///
/// Opening reads the description and metadata only; the weights are extracted by `extractWeights()`,
/// so a model the description already refuses costs no extraction.
final class KerasArchive {
    let path: String
    let config: String
    let metadata: KerasJSON?
    private let archive: Archive
    private let weightsEntry: Entry
    /// model.weights.h5 extracted to a temporary file (libhdf5 opens files by path); removed by `cleanUp()`.
    private(set) var weightsPath: String?
    private var temporaryFolder: URL?
    /// Lets a SIGINT/SIGTERM handler remove the temporary folder (`PendingTemporaryItems`).
    private var registration: UUID?

    /// Largest entry FoldKit extracts: 4 GiB (a .keras holding more weights is beyond any model it runs).
    static let maximumEntryBytes: UInt64 = 4 << 30
    /// Largest expansion of a deflated entry: float weights deflate by less than 2x and JSON by about
    /// 10x, a zip bomb by 1000x; an entry may also always grow to `expansionAllowance` bytes.
    static let maximumExpansion: UInt64 = 100
    static let expansionAllowance: UInt64 = 1 << 20

    init(path: String) throws {
        self.path = path
        do {
            archive = try Archive(url: URL(fileURLWithPath: path), accessMode: .read)
        } catch {
            throw FoldKitError(.badInput, "not a readable zip archive (.keras): \(error)", file: path)
        }
        guard let configData = try Self.entryData("config.json", in: archive, path: path, required: true),
            let weightsEntry = try Self.entry("model.weights.h5", in: archive, path: path, required: true)
        else {
            throw FoldKitError(.badInput, "archive is missing entries", file: path)
        }
        self.weightsEntry = weightsEntry
        config = String(decoding: configData, as: UTF8.self)
        metadata = try Self.entryData("metadata.json", in: archive, path: path, required: false).flatMap {
            try? KerasJSON.parse(String(decoding: $0, as: UTF8.self), file: "\(path)/metadata.json")
        }
    }

    /// Extracts model.weights.h5 to a temporary file, chunk by chunk (memory stays bounded by the extraction
    /// buffer), and returns its path; later calls return the same path. Removed by `cleanUp()`.
    func extractWeights() throws -> String {
        if let weightsPath { return weightsPath }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("foldkit-keras-\(UUID().uuidString)")
        let url = folder.appendingPathComponent("model.weights.h5")
        let output: FileHandle
        // Registered before it exists, so a SIGINT/SIGTERM at any point finds and removes it.
        temporaryFolder = folder
        registration = PendingTemporaryItems.register(folder)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            guard FileManager.default.createFile(atPath: url.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
            output = try FileHandle(forWritingTo: url)
        } catch {
            cleanUp()
            throw FoldKitError(.io, "cannot write the extracted weights to a temporary file: \(error)", file: path)
        }
        do {
            defer { try? output.close() }
            try Self.extract(weightsEntry, from: archive, path: path) { chunk in
                do { try output.write(contentsOf: chunk) } catch {
                    throw FoldKitError(.io, "cannot write the extracted weights to a temporary file: \(error)", file: self.path)
                }
            }
        } catch {
            cleanUp()
            throw error
        }
        weightsPath = url.path
        return url.path
    }

    /// The entry `name`, its declared size checked; nil (or an error listing the entries, when `required`) if absent.
    private static func entry(_ name: String, in archive: Archive, path: String, required: Bool) throws -> Entry? {
        guard let entry = archive[name] else {
            if required {
                throw FoldKitError(
                    .badInput, "archive has no '\(name)'", file: path,
                    expected: "config.json, model.weights.h5, metadata.json",
                    found: archive.map { $0.path }.joined(separator: ", "))
            }
            return nil
        }
        try checkDeclaredSize(of: entry, archive: path)
        return entry
    }

    /// The bytes of entry `name` (a small one: the description or the metadata).
    private static func entryData(_ name: String, in archive: Archive, path: String, required: Bool) throws -> Data? {
        guard let found = try entry(name, in: archive, path: path, required: required) else { return nil }
        var data = Data()
        try extract(found, from: archive, path: path) { data.append($0) }
        return data
    }

    /// Extracts `entry` into `consume`, stopping as soon as more bytes come out than its header declared,
    /// and checks the CRC-32 of what came out against the one the archive records for the entry.
    private static func extract(_ entry: Entry, from archive: Archive, path: String, _ consume: (Data) throws -> Void) throws {
        var produced: UInt64 = 0
        let computed: CRC32
        do {
            computed = try archive.extract(
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
        guard computed == entry.checksum else {
            throw FoldKitError(
                .badInput, "entry '\(entry.path)' fails its CRC-32 check: the archive is damaged", file: path,
                expected: String(format: "CRC-32 %08x", entry.checksum), found: String(format: "%08x", computed))
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

    /// Removes the extracted weights, if any.
    func cleanUp() {
        if let temporaryFolder { try? FileManager.default.removeItem(at: temporaryFolder) }
        if let registration { PendingTemporaryItems.unregister(registration) }
        temporaryFolder = nil
        registration = nil
        weightsPath = nil
    }
}
