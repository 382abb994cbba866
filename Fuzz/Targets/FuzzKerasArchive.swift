// libFuzzer target: the .keras zip reader (KerasArchive over ZIPFoundation).
// Input: the archive's bytes.
import FoldKitCore
import Foundation
@testable import FoldKitKeras

private let archivePath = "/dev/shm/foldkit-fuzz-\(getpid()).keras"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKerasArchive(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard FileManager.default.createFile(atPath: archivePath, contents: Data(bytes: data, count: size)) else { return 0 }
    do {
        let archive = try KerasArchive(path: archivePath)
        archive.cleanUp()
    } catch is FoldKitError {
    } catch {
        fatalError("not a FoldKitError: \(error)")
    }
    return 0
}
