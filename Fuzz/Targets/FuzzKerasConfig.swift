// libFuzzer target: the Keras model description decoder and graph translator (KerasJSON,
// KerasModelDescription, KerasGraphTranslator) through KerasReader.read with a fixed weights file
// (Fixtures/keras/dag.tfkeras.weights.h5, found from the repository root).
// Input: the model description (.json, as `model.to_json()` writes it).
import FoldKitCore
import Foundation
@testable import FoldKitKeras

private let configPath = "/dev/shm/foldkit-fuzz-\(getpid()).json"
private let weightsPath = ProcessInfo.processInfo.environment["FOLDKIT_FUZZ_H5"] ?? "Fixtures/keras/dag.tfkeras.weights.h5"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKerasConfig(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard FileManager.default.createFile(atPath: configPath, contents: Data(bytes: data, count: size)) else { return 0 }
    do {
        _ = try KerasReader.read(paths: [configPath, weightsPath])
    } catch is FoldKitError {
    } catch {
        fatalError("not a FoldKitError: \(error)")
    }
    return 0
}
