import Foundation
import FoldKitLoader

// Reads the folder FoldKitPlugin generated from Model/yolo-fastest-1.1.cfg + .weights during the build
// (`yolo-fastest-1.1.blobs` in this target's resource bundle) with FoldKitLoader - Foundation only, as
// an app on a device would: every blob's size and SHA-256 are checked against manifest.json and the
// files are memory-mapped. Then it prints every tensor with its shape, layout and first values.

let modelName = "yolo-fastest-1.1"

func run() throws {
    guard let url = Bundle.module.url(forResource: modelName, withExtension: "blobs") else {
        throw ExampleFailure("\(modelName).blobs is not in \(Bundle.module.bundlePath): did FoldKitPlugin run?")
    }
    let folder = try BlobFolder(url: url)
    print("\(url.path)")
    print("source: \(folder.source.format) \(folder.source.files.joined(separator: " ")); \(folder.layers.count) layers, \(folder.tensors.count) tensors")
    var totalBytes = 0
    for tensor in folder.tensors {
        let shape = tensor.shape.map(String.init).joined(separator: "x")
        let head = tensor.withUnsafeFloats { $0.prefix(3).map { String(format: "%+.5f", $0) }.joined(separator: " ") }
        let name = tensor.name.padding(toLength: 10, withPad: " ", startingAt: 0)
        let shapeColumn = (shape + " " + tensor.layout).padding(toLength: 20, withPad: " ", startingAt: 0)
        let role = tensor.role.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0)
        print("\(name) \(role) \(shapeColumn) \(String(tensor.data.count).leftPadded(to: 7)) B  \(head)")
        totalBytes += tensor.data.count
    }
    print("\(folder.tensors.count) tensors, \(totalBytes) bytes, every size and SHA-256 as manifest.json gives")
}

extension String {
    func leftPadded(to width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}

do {
    try run()
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}
