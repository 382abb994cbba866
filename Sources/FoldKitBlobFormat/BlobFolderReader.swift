import Foundation

/// Reads a blob folder (Docs/BlobFormat.md): manifest.json, then each blob checked against its entry. The one
/// reader of the format: FoldKitLoader's `BlobFolder` throws the first problem, `foldkit verify --blobs`
/// collects them all.
///
/// Reading the manifest checks that every entry names a known dtype (`BlobDType`) and layout (`BlobLayout`):
/// an unknown one is a `.badEntry` error naming the entry. Then a blob is checked in this order, and the first
/// failing check is its problem:
/// 1. the file name is plain (no "/", "\\", ".", ".." or empty), so nothing outside the folder is read;
/// 2. byteCount = product(shape) x dtype size, with every dimension >= 0;
/// 3. the file exists and its size is byteCount;
/// 4. (when asked) its SHA-256 is the manifest's: reported beside the bytes, which are still returned.
public enum BlobFolderReader {
    /// A blob whose file passed checks 1 to 3.
    public struct LoadedBlob: Sendable {
        /// The manifest's entry.
        public var entry: BlobEntry
        /// The file's bytes (`entry.byteCount` of them), memory-mapped when asked.
        public var data: Data
        /// Set when the file's SHA-256 is not the manifest's (check 4).
        public var checksumMismatch: BlobFolderError?
    }

    /// The manifest of the folder at `folder`; throws `.missingManifest`, `.badManifest` (not JSON of the
    /// manifest's form, or another format or version) or `.badEntry` (an entry's dtype or layout unknown).
    public static func manifest(in folder: URL) throws -> BlobManifest {
        let data: Data
        do { data = try Data(contentsOf: folder.appendingPathComponent(BlobManifest.fileName)) } catch {
            throw BlobFolderError(
                .missingManifest, "cannot read the manifest in \(folder.path): \(error.localizedDescription)", file: BlobManifest.fileName)
        }
        let manifest: BlobManifest
        do { manifest = try JSONDecoder().decode(BlobManifest.self, from: data) } catch let error as BlobFolderError {
            throw error
        } catch {
            throw BlobFolderError(.badManifest, "not a FoldKit blob manifest: \(error)", file: BlobManifest.fileName)
        }
        guard manifest.format == BlobManifest.formatName, BlobManifest.readableVersions.contains(manifest.version) else {
            let versions = BlobManifest.readableVersions.map { "v\($0)" }.joined(separator: " or ")
            throw BlobFolderError(
                .badManifest, "unknown manifest format", file: BlobManifest.fileName,
                expected: "\(BlobManifest.formatName) \(versions)", found: "\(manifest.format) v\(manifest.version)")
        }
        return manifest
    }

    /// Checks `entry` against its file in `folder` (checks 1 to 3 throw; check 4, when `digest` is given, is
    /// reported in the result). `digest` gives a file's SHA-256 as lowercase hex (`BlobChecksum.sha256Hex`, or a
    /// faster implementation the caller links).
    public static func load(_ entry: BlobEntry, in folder: URL, memoryMapped: Bool, digest: ((Data) -> String)?) throws -> LoadedBlob {
        guard isPlainFileName(entry.file) else {
            throw BlobFolderError(.unsafeFileName, "file name leaves the blob folder", file: entry.file, expected: "a plain file name")
        }
        let dtype = entry.dtype
        var elements = 1, valid = true
        for dimension in entry.shape {
            let product = elements.multipliedReportingOverflow(by: dimension)
            valid = valid && dimension >= 0 && !product.overflow
            elements = product.partialValue
        }
        let bytes = elements.multipliedReportingOverflow(by: dtype.size)
        guard valid, !bytes.overflow, entry.byteCount == bytes.partialValue else {
            throw BlobFolderError(
                .badEntry, "byte count of \(entry.name) is not its shape \(entry.shape) x \(dtype.size)", file: entry.file,
                expected: valid && !bytes.overflow ? "\(bytes.partialValue) bytes" : "dimensions >= 0 whose product fits",
                found: "\(entry.byteCount) bytes")
        }
        let url = folder.appendingPathComponent(entry.file)
        guard FileManager.default.fileExists(atPath: url.path) else {
            throw BlobFolderError(.missingFile, "blob file of \(entry.name) is missing", file: entry.file)
        }
        let data: Data
        do { data = try Data(contentsOf: url, options: memoryMapped ? .alwaysMapped : []) } catch {
            throw BlobFolderError(.missingFile, "cannot read the blob file of \(entry.name): \(error.localizedDescription)", file: entry.file)
        }
        guard data.count == entry.byteCount else {
            throw BlobFolderError(
                .sizeMismatch, "size of \(entry.name) differs from the manifest", file: entry.file,
                expected: "\(entry.byteCount) bytes", found: "\(data.count) bytes")
        }
        var mismatch: BlobFolderError?
        if let digest {
            let found = digest(data)
            if found != entry.sha256.lowercased() {
                mismatch = BlobFolderError(
                    .checksumMismatch, "SHA-256 of \(entry.name) differs from the manifest", file: entry.file,
                    expected: entry.sha256, found: found)
            }
        }
        return LoadedBlob(entry: entry, data: data, checksumMismatch: mismatch)
    }

    /// A name that stays inside the folder it is joined to: not empty, ".", "..", and without "/", "\\" or NUL.
    public static func isPlainFileName(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".." && !name.contains("/") && !name.contains("\\") && !name.contains("\0")
    }
}
