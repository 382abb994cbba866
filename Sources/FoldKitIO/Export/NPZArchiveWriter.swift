import FoldKitCore
import Foundation
import ZIPFoundation

/// Writes an `.npz` pack (`NPZArchive`'s format: deflated `.npy` members, dates fixed at 1980-01-01) one
/// member at a time, so that a caller producing arrays one after another holds only the current one.
/// The members appear in the order they are added; adding the same members in the same order gives the
/// same bytes as `NPZArchive.write`.
final class NPZArchiveWriter {
    let url: URL
    private let archive: Archive
    private static let fixedDate = Date(timeIntervalSince1970: 315_532_800)

    /// Creates the archive at `url`, replacing any file there.
    init(url: URL) throws {
        self.url = url
        try? FileManager.default.removeItem(at: url)
        do { archive = try Archive(url: url, accessMode: .create) } catch {
            throw FoldKitError(.io, "cannot create .npz: \(error)", file: url.path)
        }
    }

    /// Adds member `name`.npy holding `npy` (an encoded .npy file, `NPYFile.encode`).
    func add(name: String, npy data: Data) throws {
        do {
            try archive.addEntry(
                with: "\(name).npy", type: .file, uncompressedSize: Int64(data.count), modificationDate: Self.fixedDate,
                compressionMethod: .deflate
            ) { position, size in
                data.subdata(in: Int(position)..<(Int(position) + size))
            }
        } catch {
            throw FoldKitError(.io, "cannot add \(name) to .npz: \(error)", file: url.path)
        }
    }
}
