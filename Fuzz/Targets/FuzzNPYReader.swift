// libFuzzer target: the .npy reader (NPYFile.parse, compiled into this target by Fuzz/build.sh).
// Input: the .npy file's bytes.
import FoldKitCore
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNPYReader(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    do {
        _ = try NPYFile.parse(Data(bytes: data, count: size), file: "fuzz.npy")
    } catch is FoldKitError {
    } catch {
        fatalError("not a FoldKitError: \(error)")
    }
    return 0
}
