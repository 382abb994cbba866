// libFuzzer target: the Darknet .cfg parser and network builder (CfgParser, DarknetReader.build).
// Input: .cfg text. The weights path does not exist, so tensors are only planned, never read.
import FoldKitCore
@testable import FoldKitDarknet

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCfgParser(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    do {
        let cfg = try CfgParser.parse(text: text, path: "fuzz.cfg")
        _ = try DarknetReader.build(cfg, weightsPath: "/nonexistent/fuzz.weights", dataOffset: 20, options: .init())
    } catch is FoldKitError {
    } catch {
        fatalError("not a FoldKitError: \(error)")
    }
    return 0
}
