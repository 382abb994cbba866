import Foundation

// Reads the folder FoldKitPlugin generated from Model/yolo-fastest-1.1.cfg + .weights during the build
// (`yolo-fastest-1.1.blobs` in this target's resource bundle) and prints every tensor it lists.

let modelName = "yolo-fastest-1.1"

func run() throws {
    guard let folder = Bundle.module.url(forResource: modelName, withExtension: "blobs") else {
        throw ExampleFailure("\(modelName).blobs is not in \(Bundle.module.bundlePath): did FoldKitPlugin run?")
    }
    let manifest = try JSONDecoder().decode(
        BlobManifest.self, from: Data(contentsOf: folder.appendingPathComponent("manifest.json")))
    guard manifest.format == "foldkit-blobs" else {
        throw ExampleFailure("manifest.json: format '\(manifest.format)', expected 'foldkit-blobs'")
    }
    print("\(folder.path)")
    print("source: \(manifest.source.format) \(manifest.source.files.joined(separator: " ")); \(manifest.layers.count) layers, \(manifest.tensors.count) tensors")
    var totalBytes = 0
    for tensor in manifest.tensors {
        let blob = try FloatBlob(contentsOf: folder.appendingPathComponent(tensor.file), expectedByteCount: tensor.byteCount)
        let shape = tensor.shape.map(String.init).joined(separator: "x")
        let head = blob.values.prefix(3).map { String(format: "%+.5f", $0) }.joined(separator: " ")
        let name = tensor.name.padding(toLength: 10, withPad: " ", startingAt: 0)
        let shapeColumn = (shape + " " + tensor.layout).padding(toLength: 20, withPad: " ", startingAt: 0)
        print("\(name) \(tensor.role.padding(toLength: 8, withPad: " ", startingAt: 0)) \(shapeColumn) \(String(tensor.byteCount).leftPadded(to: 7)) B  \(head)")
        totalBytes += tensor.byteCount
    }
    print("\(manifest.tensors.count) tensors, \(totalBytes) bytes, every file the size its manifest entry gives")
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
