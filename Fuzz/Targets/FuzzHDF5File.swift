// libFuzzer target: raw HDF5 bytes read as a Keras model (HDF5File through libhdf5, the global heap check,
// attributes, datasets, the model description and its weights).
// Input: the .h5 file's bytes.
import FoldKitCore
import Foundation
@testable import FoldKitKeras

private let modelPath = "/dev/shm/foldkit-fuzz-\(getpid()).h5"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHDF5File(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard FileManager.default.createFile(atPath: modelPath, contents: Data(bytes: data, count: size)) else { return 0 }
    do {
        _ = try KerasReader.read(paths: [modelPath])
    } catch is FoldKitError {
    } catch {
        fatalError("not a FoldKitError: \(error)")
    }
    return 0
}
