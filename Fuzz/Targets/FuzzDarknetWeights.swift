// libFuzzer target: the Darknet .weights reader (header, size checks, float reads) for a fixed
// small .cfg (Fixtures/darknet/cfg/conv-basic.cfg, found from the repository root).
// Input: the .weights file's bytes.
import FoldKitCore
import Foundation
@testable import FoldKitDarknet

private let weightsPath = "/dev/shm/foldkit-fuzz-\(getpid()).weights"
private let cfgPath = ProcessInfo.processInfo.environment["FOLDKIT_FUZZ_CFG"] ?? "Fixtures/darknet/cfg/conv-basic.cfg"

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDarknetWeights(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    guard FileManager.default.createFile(atPath: weightsPath, contents: Data(bytes: data, count: size)) else { return 0 }
    do {
        let network = try DarknetReader.read(cfgPath: cfgPath, weightsPath: weightsPath)
        for layer in network.layers {
            for parameter in layer.kind.parameters { _ = try parameter.tensor.floats() }
        }
    } catch is FoldKitError {
    } catch {
        fatalError("not a FoldKitError: \(error)")
    }
    return 0
}
