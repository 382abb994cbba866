import FoldKitCore
import Foundation
import ZIPFoundation

/// Writes `.npz` packs: a zip archive of `.npy` members, deflated (zlib, through ZIPFoundation), which
/// `numpy.load` opens as a mapping from member name (without `.npy`) to array. Member dates are fixed
/// (1980-01-01) so the same arrays give byte-identical packs. `NPZArchiveWriter` writes one member at a time.
enum NPZArchive {
    static func write(arrays: [(name: String, values: [Float], shape: [Int])], to url: URL) throws {
        let writer = try NPZArchiveWriter(url: url)
        for array in arrays {
            try writer.add(name: array.name, npy: NPYFile.encode(values: array.values, shape: array.shape))
        }
    }

    /// Reads every member of an .npz written by numpy or by `write`.
    static func read(url: URL) throws -> [String: (shape: [Int], values: [Float])] {
        let archive: Archive
        do { archive = try Archive(url: url, accessMode: .read) } catch {
            throw FoldKitError(.badInput, "not a zip/.npz archive: \(error)", file: url.path)
        }
        var result: [String: (shape: [Int], values: [Float])] = [:]
        for entry in archive where entry.type == .file {
            var data = Data()
            do { _ = try archive.extract(entry) { data.append($0) } } catch {
                throw FoldKitError(.badInput, "cannot inflate member \(entry.path): \(error)", file: url.path)
            }
            let parsed = try NPYFile.parse(data, file: "\(url.path)#\(entry.path)")
            let name = entry.path.hasSuffix(".npy") ? String(entry.path.dropLast(4)) : entry.path
            result[name] = (parsed.shape, parsed.values)
        }
        return result
    }
}
