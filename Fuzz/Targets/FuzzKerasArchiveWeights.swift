// libFuzzer target: a .keras archive whose inner model.weights.h5 is the input (the description and metadata
// are those of Fixtures/keras/merges.keras), read with KerasReader.read: extraction, CRC check, libhdf5 on
// the extracted weights, the Keras 3 weights layout.
// Input: the bytes of model.weights.h5. Run from the repository root (Fuzz/run.sh does).
import FoldKitCore
import Foundation
import ZIPFoundation
@testable import FoldKitKeras

private let archivePath = "/dev/shm/foldkit-fuzz-weights-\(getpid()).keras"

/// config.json and metadata.json of the fixture (read per input: data a global holds until exit is
/// reported as a leak).
private func fixtureEntries() -> [(String, Data)] {
    guard let archive = try? Archive(url: URL(fileURLWithPath: "Fixtures/keras/merges.keras"), accessMode: .read) else {
        fatalError("run from the repository root: Fixtures/keras/merges.keras not found")
    }
    return ["metadata.json", "config.json"].compactMap { name in
        guard let entry = archive[name] else { return nil }
        var data = Data()
        _ = try? archive.extract(entry) { data.append($0) }
        return (name, data)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKerasArchiveWeights(_ bytes: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let weights = Data(bytes: bytes, count: size)
    try? FileManager.default.removeItem(atPath: archivePath)
    guard let archive = try? Archive(url: URL(fileURLWithPath: archivePath), accessMode: .create) else { return 0 }
    for (name, data) in fixtureEntries() + [("model.weights.h5", weights)] {
        try? archive.addEntry(with: name, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .none) { position, count in
            data.subdata(in: Int(position)..<(Int(position) + count))
        }
    }
    do {
        _ = try KerasReader.read(paths: [archivePath])
    } catch is FoldKitError {
    } catch {
        fatalError("not a FoldKitError: \(error)")
    }
    return 0
}
